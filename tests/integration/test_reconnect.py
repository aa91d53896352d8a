"""Lossless reconnect (Tether extension): `seq` on thread events and `thread/resume` with `afterSeq`."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartApp
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

DELTAS = {"item/agentMessage/delta", "item/commandExecution/outputDelta", "item/reasoning/summaryTextDelta"}


async def test_thread_events_carry_increasing_seq(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("hello there", deltas=4))
    server = await start_app()
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)
    seqs = [m["seq"] for m in server.since(mark) if "seq" in m]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # no gap: every event reached the subscriber


async def test_resume_after_seq_across_a_restart_replays_exactly_the_durable_events_missed(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("first reply", deltas=3))
    home = tmp_path / "home"
    server = await start_app(home=home)
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)
    events = [m for m in server.since(mark) if "seq" in m]
    cut = next(m["seq"] for m in events if m["method"] == "turn/started")
    missed = [(m["seq"], m["method"]) for m in events if m["seq"] > cut and m["method"] not in DELTAS]
    await server.close()

    again = await start_app(home=home)
    mark = again.mark()
    await again.request("thread/resume", {"threadId": tid, "afterSeq": cut, "excludeTurns": True})
    await again.request("thread/loaded/list", {})  # a round trip: everything replayed has arrived
    got = [(m["seq"], m["method"]) for m in again.since(mark) if "seq" in m]
    assert [e for e in got if e[0] <= missed[-1][0]] == missed
    assert len({s for s, _ in got}) == len(got)  # no duplicates
    # After the replay the connection is a live subscriber.
    fake_model.add(script.text_reply("second"))
    mark = again.mark()
    await again.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "again"}]})
    done = await again.notification("turn/completed", after=mark)
    assert done["seq"] > missed[-1][0]
