"""Approval flows: the server asks the client before a command leaves the sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient, methods
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

ESCALATED = {
    "cmd": "echo hi > out.txt && cat out.txt",
    "sandbox_permissions": "require_escalated",
    "justification": "Allow writing out.txt in the workspace?",
}


async def _start(
    server: RpcClient, workdir: Path, sandbox: str = "read-only", policy: str = "on-request"
) -> str:
    result = await server.request(
        "thread/start", {"cwd": str(workdir), "sandbox": sandbox, "approvalPolicy": policy}
    )
    return str(result["thread"]["id"])


async def _begin(server: RpcClient, thread_id: str, text: str = "go") -> tuple[int, dict[str, Any]]:
    mark = server.mark()
    result = await server.request(
        "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]}
    )
    return mark, result["turn"]


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"].endswith("_output"):
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


def _command_items(server: RpcClient, mark: int) -> list[dict[str, Any]]:
    return [
        m["params"]["item"]
        for m in server.since(mark)
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "commandExecution"
    ]


async def test_an_accepted_escalation_runs_outside_the_sandbox_in_codex_order(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "call_shell_1")),
        script.text_reply("Wrote it."),
    )
    server = await start_app()
    thread_id = await _start(server, workdir)
    mark, _ = await _begin(server, thread_id)
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    params = request["params"]
    assert params["itemId"] == "call_shell_1" and params["threadId"] == thread_id
    assert params["reason"] == "Allow writing out.txt in the workspace?"
    assert params["command"].endswith("'echo hi > out.txt && cat out.txt'")
    assert not (workdir / "out.txt").exists()
    await server.respond(request["id"], {"decision": "accept"})
    await server.notification("turn/completed", after=mark)

    assert (workdir / "out.txt").read_text() == "hi\n"
    seq = methods(server.since(mark))
    i = seq.index("item/commandExecution/requestApproval")
    assert seq[i - 2 : i + 1] == [
        "thread/status/changed",
        "item/started",
        "item/commandExecution/requestApproval",
    ]
    assert seq[i + 1 : i + 3] == ["serverRequest/resolved", "thread/status/changed"]
    assert "item/completed" in seq[i + 3 :]
    statuses = [
        m["params"]["status"] for m in server.since(mark) if m.get("method") == "thread/status/changed"
    ]
    assert {"type": "active", "activeFlags": ["waitingOnApproval"]} in statuses
    resolved = next(m for m in server.since(mark) if m.get("method") == "serverRequest/resolved")
    assert resolved["params"] == {"threadId": thread_id, "requestId": request["id"]}
    assert _command_items(server, mark)[0]["status"] == "completed"


async def test_a_declined_command_does_not_run_and_the_model_is_told(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "c1")), script.text_reply("ok")
    )
    server = await start_app()
    mark, _ = await _begin(server, await _start(server, workdir))
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    await server.respond(request["id"], {"decision": "decline"})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    assert not (workdir / "out.txt").exists()
    assert _command_items(server, mark)[0]["status"] == "declined"
    assert _output(fake_model, "c1") == "exec command rejected by user"


async def test_cancel_interrupts_the_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.function_call("exec_command", ESCALATED, "c1")))
    server = await start_app()
    mark, _ = await _begin(server, await _start(server, workdir))
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    await server.respond(request["id"], {"decision": "cancel"})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    assert _command_items(server, mark) == []
    assert not (workdir / "out.txt").exists()


async def test_an_error_reply_fails_the_item_and_the_turn_goes_on(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "c1")), script.text_reply("ok")
    )
    server = await start_app()
    mark, _ = await _begin(server, await _start(server, workdir))
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    await server.send({"id": request["id"], "error": {"code": -32000, "message": "client refused"}})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    assert _command_items(server, mark)[0]["status"] == "failed"


async def test_accept_for_session_is_remembered_for_the_thread(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "c1")),
        script.text_reply("one"),
        script.reply(script.function_call("exec_command", ESCALATED, "c2")),
        script.text_reply("two"),
    )
    server = await start_app()
    thread_id = await _start(server, workdir)
    mark, _ = await _begin(server, thread_id)
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    await server.respond(request["id"], {"decision": "acceptForSession"})
    await server.notification("turn/completed", after=mark)
    mark, _ = await _begin(server, thread_id, "again")
    await server.notification("turn/completed", after=mark)
    assert "item/commandExecution/requestApproval" not in methods(server.since(mark))
    assert [c["status"] for c in _command_items(server, mark)] == ["completed"]


async def test_interrupt_while_an_approval_is_pending_resolves_it(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.function_call("exec_command", ESCALATED, "c1")))
    server = await start_app()
    thread_id = await _start(server, workdir)
    mark, turn = await _begin(server, thread_id)
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    await server.request("turn/interrupt", {"threadId": thread_id, "turnId": turn["id"]})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    resolved = [m for m in server.since(mark) if m.get("method") == "serverRequest/resolved"]
    assert [r["params"]["requestId"] for r in resolved] == [request["id"]]
    # A late answer to the resolved request is ignored.
    await server.respond(request["id"], {"decision": "accept"})
    assert (await server.request("thread/loaded/list", {}))["data"] == [thread_id]
    assert not (workdir / "out.txt").exists()


async def test_never_refuses_escalation_without_asking(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "c1")), script.text_reply("ok")
    )
    server = await start_app()
    mark, _ = await _begin(server, await _start(server, workdir, policy="never"))
    await server.notification("turn/completed", after=mark)
    assert "item/commandExecution/requestApproval" not in methods(server.since(mark))
    assert "you cannot ask for escalated permissions" in _output(fake_model, "c1")


async def test_untrusted_asks_before_commands_that_are_not_known_safe(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "ls"}, "c_safe")),
        script.reply(script.function_call("exec_command", {"cmd": "touch x.txt"}, "c_unsafe")),
        script.text_reply("ok"),
    )
    server = await start_app()
    mark, _ = await _begin(
        server, await _start(server, workdir, sandbox="workspace-write", policy="untrusted")
    )
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    assert request["params"]["itemId"] == "c_unsafe"
    await server.respond(request["id"], {"decision": "accept"})
    await server.notification("turn/completed", after=mark)
    assert (workdir / "x.txt").exists()


async def test_a_patch_under_a_read_only_sandbox_asks_and_applies_when_accepted(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    patch = "*** Begin Patch\n*** Add File: new.txt\n+content\n*** End Patch\n"
    fake_model.add(script.reply(script.custom_tool_call("apply_patch", patch, "p1")), script.text_reply("ok"))
    server = await start_app()
    mark, _ = await _begin(server, await _start(server, workdir))
    request = await server.server_request("item/fileChange/requestApproval", after=mark)
    assert request["params"]["itemId"] == "p1"
    assert not (workdir / "new.txt").exists()
    await server.respond(request["id"], {"decision": "accept"})
    await server.notification("turn/completed", after=mark)
    assert (workdir / "new.txt").read_text() == "content\n"
    seq = methods(server.since(mark))
    i = seq.index("item/fileChange/requestApproval")
    assert seq[i - 2 : i] == ["item/started", "thread/status/changed"]
    assert seq[i + 1] == "serverRequest/resolved"


async def test_a_declined_patch_writes_nothing(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    patch = "*** Begin Patch\n*** Add File: new.txt\n+content\n*** End Patch\n"
    fake_model.add(script.reply(script.custom_tool_call("apply_patch", patch, "p1")), script.text_reply("ok"))
    server = await start_app()
    mark, _ = await _begin(server, await _start(server, workdir))
    request = await server.server_request("item/fileChange/requestApproval", after=mark)
    await server.respond(request["id"], {"decision": "decline"})
    await server.notification("turn/completed", after=mark)
    assert not (workdir / "new.txt").exists()
    assert _output(fake_model, "p1") == "patch rejected by user"


def _verdict(outcome: str) -> dict[str, Any]:
    answer = {"outcome": outcome, "risk_level": "low", "rationale": f"reviewer says {outcome}"}
    return script.text_reply(json.dumps(answer), deltas=1)


async def test_auto_review_allows_without_asking_the_client(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "c1")),
        _verdict("allow"),
        script.text_reply("ok"),
    )
    server = await start_app()
    result = await server.request(
        "thread/start", {"cwd": str(workdir), "sandbox": "read-only", "approvalsReviewer": "auto_review"}
    )
    mark, _ = await _begin(server, result["thread"]["id"])
    await server.notification("turn/completed", after=mark)
    seq = methods(server.since(mark))
    assert "item/commandExecution/requestApproval" not in seq
    assert "item/autoApprovalReview/started" in seq
    completed = next(m for m in server.since(mark) if m.get("method") == "item/autoApprovalReview/completed")
    assert completed["params"]["review"]["status"] == "approved"
    assert completed["params"]["targetItemId"] == "c1"
    assert (workdir / "out.txt").exists()
    review_request = fake_model.requests[1].body
    assert "outcome" in review_request["text"]["format"]["schema"]["properties"]
    assert "echo hi > out.txt" in json.dumps(review_request["input"])


async def test_auto_review_denials_decline_and_three_in_a_row_interrupt_the_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "c1")),
        _verdict("deny"),
        script.reply(script.function_call("exec_command", ESCALATED, "c2")),
        _verdict("deny"),
        script.reply(script.function_call("exec_command", ESCALATED, "c3")),
        _verdict("deny"),
    )
    server = await start_app()
    result = await server.request(
        "thread/start", {"cwd": str(workdir), "sandbox": "read-only", "approvalsReviewer": "auto_review"}
    )
    mark, _ = await _begin(server, result["thread"]["id"])
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    assert [c["status"] for c in _command_items(server, mark)] == ["declined", "declined"]
    assert _output(fake_model, "c1") == "exec command rejected by user"
    assert not (workdir / "out.txt").exists()
