"""A streamed reply, in the order the reference server emits it."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartApp
from tests.support.rpcclient import methods
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_streamed_reply_arrives_as_deltas_then_a_completed_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("Hello! I am a scripted mock model.", deltas=5))
    server = await start_app()
    started = await server.request("thread/start", {"cwd": str(workdir)})
    thread_id = started["thread"]["id"]
    await server.notification("thread/started")

    mark = server.mark()
    result = await server.request(
        "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hello"}]}
    )
    assert result["turn"]["status"] == "inProgress"
    done = await server.notification("turn/completed", after=mark)

    seq = [m for m in methods(server.since(mark)) if m != "<result>"]
    assert seq == [
        "thread/status/changed",
        "turn/started",
        "item/started",
        "item/completed",
        "item/started",
        *["item/agentMessage/delta"] * 5,
        "item/completed",
        "thread/tokenUsage/updated",
        "thread/status/changed",
        "turn/completed",
    ]
    turn = done["params"]["turn"]
    assert turn["status"] == "completed"
    assert [i["text"] for i in turn["items"]] == ["Hello! I am a scripted mock model."]
    deltas = [
        m["params"]["delta"] for m in server.since(mark) if m.get("method") == "item/agentMessage/delta"
    ]
    assert "".join(deltas) == "Hello! I am a scripted mock model."


async def test_the_model_request_carries_instructions_context_and_the_user_message(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    (workdir / ".git").mkdir()
    (workdir / "AGENTS.md").write_text("Always run the tests.\n")
    fake_model.add(script.text_reply("ok"), script.text_reply("ok again"))
    server = await start_app()
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    for text in ("first", "second"):
        mark = server.mark()
        await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
        await server.notification("turn/completed", after=mark)

    first, second = (r.body for r in fake_model.requests)
    assert first["prompt_cache_key"] == thread_id
    assert first["stream"] is True and first["store"] is False
    assert first["instructions"]
    texts = [c["text"] for m in first["input"] for c in m["content"]]
    assert any("Always run the tests." in t for t in texts)
    assert any("<environment_context>" in t and str(workdir) in t for t in texts)
    assert texts[-1] == "first"
    # The second request extends the first one: same prefix, then the reply and the new message.
    assert second["input"][: len(first["input"])] == first["input"]
    assert second["input"][-1]["content"][0]["text"] == "second"
    # Codex 0.169.0's tools and order (tests/integration/test_model_tools.py compares the schemas).
    assert [t.get("name", t["type"]) for t in first["tools"]] == [
        "exec_command",
        "write_stdin",
        "request_user_input",
        "apply_patch",
        "view_image",
        "get_goal",
        "create_goal",
        "update_goal",
        "tool_search",
    ]
