"""Failures the chaos batteries found, each kept as a deterministic case."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_seqs_sent_before_a_crash_are_not_reused_after_it(
    tmp_path: Path, start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    # Found by the random-kill battery: deltas are numbered but not stored, so after a SIGKILL the
    # daemon numbered on from the stored last seq and reused seqs the client had seen. A client
    # resuming from its last seq then never got the interrupted turn's turn/completed.
    streamed = script.reply(script.message("done", msg_id="m1"), script.message("cut off", msg_id="m2"))
    steps = streamed["steps"]
    last_done = max(i for i, step in enumerate(steps) if "output_item.done" in str(step.get("event")))
    steps.insert(last_done, script.gated("hold"))  # m2 streams its deltas, then the model stalls
    fake_model.add(streamed)
    home = tmp_path / "home"
    server = await start_server(home=home)
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    turn = await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "go"}]})
    await fake_model.wait_for_gate("hold")
    # Item ids are the thread's own (not m1/m2): m2's item is the agent message started after m1's.
    m1 = await server.notification(
        "item/completed", after=mark, where=lambda p: p["item"].get("text") == "done"
    )
    m2 = await server.notification(
        "item/started",
        after=mark,
        where=lambda p: p["item"]["type"] == "agentMessage" and p["item"]["id"] != m1["params"]["item"]["id"],
    )
    m2_id = m2["params"]["item"]["id"]
    await server.notification("item/agentMessage/delta", after=mark, where=lambda p: p["itemId"] == m2_id)
    last = max(m["seq"] for m in server.since(mark) if "seq" in m)
    server.kill()
    await server.close(check=False)

    again = await start_server(home=home)
    mark = again.mark()
    await again.request("thread/resume", {"threadId": tid, "afterSeq": last, "excludeTurns": True})
    done = await again.notification(
        "turn/completed", after=mark, where=lambda p: p["turn"]["id"] == turn["turn"]["id"]
    )
    assert done["params"]["turn"]["status"] == "interrupted"
    assert all(m["seq"] > last for m in again.since(mark) if "seq" in m)
