"""Steering, interrupting, retries and failures of a running turn."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient, methods
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def _thread(server: RpcClient, workdir: Path, sandbox: str = "danger-full-access") -> str:
    result = await server.request("thread/start", {"cwd": str(workdir), "sandbox": sandbox})
    return str(result["thread"]["id"])


def _text(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


async def test_steered_input_reaches_the_model_within_the_same_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.gated("first"), script.message("Working on it.")),
        script.text_reply("Also done with the extra request."),
    )
    server = await start_app()
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    turn = (await server.request("turn/start", {"threadId": thread_id, "input": _text("do a")}))["turn"]
    await fake_model.wait_for_gate("first")

    wrong = await server.call(
        "turn/steer", {"threadId": thread_id, "input": _text("b"), "expectedTurnId": "x"}
    )
    assert wrong["error"]["message"] == f"expected active turn id `x` but found `{turn['id']}`"
    steered = await server.request(
        "turn/steer", {"threadId": thread_id, "input": _text("also do b"), "expectedTurnId": turn["id"]}
    )
    assert steered == {"turnId": turn["id"]}
    fake_model.release("first")
    done = await server.notification("turn/completed", after=mark)

    assert done["params"]["turn"]["id"] == turn["id"]
    users = [
        m["params"]["item"]
        for m in server.since(mark)
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "userMessage"
    ]
    assert [u["content"][0]["text"] for u in users] == ["do a", "also do b"]
    second = fake_model.requests[1].body["input"]
    assert second[-1]["content"][0]["text"] == "also do b"
    assert len(fake_model.requests) == 2
    assert done["params"]["turn"]["items"][0]["text"] == "Also done with the extra request."


async def test_turn_start_while_a_turn_runs_steers_into_it(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.gated("g1"), script.message("one")), script.text_reply("two"))
    server = await start_app()
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    first = (await server.request("turn/start", {"threadId": thread_id, "input": _text("a")}))["turn"]
    await fake_model.wait_for_gate("g1")
    second = (await server.request("turn/start", {"threadId": thread_id, "input": _text("b")}))["turn"]
    assert second["id"] == first["id"]
    fake_model.release("g1")
    await server.notification("turn/completed", after=mark)
    assert methods(server.since(mark)).count("turn/started") == 1


async def test_steer_and_interrupt_without_an_active_turn_are_refused(
    start_app: StartApp, workdir: Path
) -> None:
    server = await start_app()
    thread_id = await _thread(server, workdir)
    steer = await server.call(
        "turn/steer", {"threadId": thread_id, "input": _text("x"), "expectedTurnId": "t"}
    )
    assert steer["error"] == {"code": -32600, "message": "no active turn to steer"}
    interrupt = await server.call("turn/interrupt", {"threadId": thread_id, "turnId": "t"})
    assert interrupt["error"] == {"code": -32600, "message": "no active turn to interrupt"}


async def test_interrupt_during_streaming_completes_the_turn_as_interrupted_and_the_model_is_told(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.message("partial"), script.gated("never")), script.text_reply("next"))
    server = await start_app()
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    turn = (await server.request("turn/start", {"threadId": thread_id, "input": _text("long")}))["turn"]
    await fake_model.wait_for_gate("never")
    assert await server.request("turn/interrupt", {"threadId": thread_id, "turnId": turn["id"]}) == {}
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    assert done["params"]["turn"]["error"] is None
    tail = methods(server.since(mark))[-2:]
    assert tail == ["thread/status/changed", "turn/completed"]

    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": _text("again")})
    await server.notification("turn/completed", after=mark)
    texts = [
        c.get("text", "") for item in fake_model.requests[-1].body["input"] for c in item.get("content", [])
    ]
    assert any("<turn_aborted>" in t for t in texts)


async def test_interrupt_during_a_running_command_kills_it(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    cmd = "echo PID=$$; exec sleep 600"
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": cmd, "yield_time_ms": 30000}, "c1"))
    )
    server = await start_app()
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    turn = (await server.request("turn/start", {"threadId": thread_id, "input": _text("sleep")}))["turn"]
    delta = await server.notification(
        "item/commandExecution/outputDelta", after=mark, where=lambda p: "PID=" in p["delta"]
    )
    pid = int(delta["params"]["delta"].split("PID=")[1].split()[0])
    assert _alive(pid)
    await server.request("turn/interrupt", {"threadId": thread_id, "turnId": turn["id"]})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def test_retryable_failures_are_retried_with_notices_then_the_turn_fails(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(*(script.http_error(500, {"error": {"message": "boom"}}) for _ in range(3)))
    server = await start_app(stream_max_retries=2)
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": _text("hi")})
    done = await server.notification("turn/completed", after=mark)
    errors = [m["params"] for m in server.since(mark) if m.get("method") == "error"]
    assert [e["willRetry"] for e in errors] == [True, True, False]
    turn = done["params"]["turn"]
    assert turn["status"] == "failed"
    assert turn["error"]["codexErrorInfo"] == {"httpConnectionFailed": {"httpStatusCode": 500}}
    statuses = [
        m["params"]["status"]["type"]
        for m in server.since(mark)
        if m.get("method") == "thread/status/changed"
    ]
    assert statuses == ["active", "systemError"]
    assert len(fake_model.requests) == 3


async def test_a_retry_that_succeeds_completes_the_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.disconnect_after(events=2, response=script.text_reply("lost")), script.text_reply("ok")
    )
    server = await start_app(stream_max_retries=1)
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": _text("hi")})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    retry = next(m["params"] for m in server.since(mark) if m.get("method") == "error")
    assert retry["willRetry"] is True
    assert retry["error"]["codexErrorInfo"] == {"responseStreamDisconnected": {"httpStatusCode": None}}


async def test_unauthorized_fails_at_once_without_retrying(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.http_error(401, {"error": {"message": "bad key"}}))
    server = await start_app(stream_max_retries=3)
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": _text("hi")})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["error"]["codexErrorInfo"] == "unauthorized"
    assert len(fake_model.requests) == 1


async def test_token_usage_accumulates_across_turns(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.text_reply("a", usage=script.usage(100, 20, cached_input_tokens=10)),
        script.text_reply("b", usage=script.usage(150, 30, reasoning_output_tokens=5)),
    )
    server = await start_app()
    thread_id = await _thread(server, workdir)
    for text in ("one", "two"):
        mark = server.mark()
        await server.request("turn/start", {"threadId": thread_id, "input": _text(text)})
        await server.notification("turn/completed", after=mark)
    usage = [
        m["params"]["tokenUsage"] for m in server.messages if m.get("method") == "thread/tokenUsage/updated"
    ]
    assert usage[0]["last"]["inputTokens"] == 100 and usage[0]["last"]["cachedInputTokens"] == 10
    assert usage[1]["last"]["totalTokens"] == 180
    assert usage[1]["total"]["totalTokens"] == 300
    assert usage[1]["total"]["outputTokens"] == 50
    assert usage[1]["total"]["reasoningOutputTokens"] == 5


async def test_a_missing_api_key_fails_the_turn_with_a_clear_message(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_app("-c", 'model_providers.mock.env_key="TETHER_TEST_MISSING_KEY"')
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": _text("hi")})
    done = await server.notification("turn/completed", after=mark)
    error = done["params"]["turn"]["error"]
    assert "TETHER_TEST_MISSING_KEY" in error["message"]
    assert error["codexErrorInfo"] == "unauthorized"
    assert fake_model.requests == []
