"""Exec policy rules: forbidden, prompt and allow rules, and approvals that add a rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _rules(home: Path, text: str) -> None:
    (home / "rules").mkdir(parents=True, exist_ok=True)
    (home / "rules" / "team.rules").write_text(text)


def _model_runs(fake: FakeResponsesServer, cmd: str, call_id: str) -> None:
    # Not a login shell: commands that leave the sandbox must not depend on the machine's profile.
    fake.add(
        script.reply(script.function_call("exec_command", {"cmd": cmd, "login": False}, call_id)),
        script.text_reply("Done."),
    )


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"].endswith("_output"):
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


async def _thread(server: RpcClient, workdir: Path, sandbox: str, policy: str) -> str:
    result = await server.request(
        "thread/start", {"cwd": str(workdir), "sandbox": sandbox, "approvalPolicy": policy}
    )
    return str(result["thread"]["id"])


async def _turn(server: RpcClient, thread_id: str) -> int:
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    return mark


def _asked(server: RpcClient, mark: int) -> list[dict[str, Any]]:
    return [m for m in server.since(mark) if m.get("method") == "item/commandExecution/requestApproval"]


async def test_a_forbidden_rule_refuses_the_command_without_asking(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    _rules(home, 'prefix_rule(pattern=["rm", "-rf"], decision="forbidden", justification="no rm")\n')
    (workdir / "build").mkdir()
    _model_runs(fake_model, "rm -rf build", "c1")
    server = await start_app(home=home)
    thread_id = await _thread(server, workdir, "danger-full-access", "on-request")
    mark = await _turn(server, thread_id)
    await server.notification("turn/completed", after=mark)
    assert _output(fake_model, "c1") == "`rm -rf build` rejected: no rm"
    assert _asked(server, mark) == []
    assert (workdir / "build").is_dir()


async def test_a_prompt_rule_asks_with_its_justification_and_runs_when_accepted(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    _rules(home, 'prefix_rule(pattern=["touch"], decision="prompt", justification="creates files")\n')
    _model_runs(fake_model, "touch made.txt", "c1")
    server = await start_app(home=home)
    thread_id = await _thread(server, workdir, "workspace-write", "on-request")
    mark = await _turn(server, thread_id)
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    assert request["params"]["reason"] == "`touch made.txt` requires approval: creates files"
    assert not (workdir / "made.txt").exists()
    await server.respond(request["id"], {"decision": "accept"})
    await server.notification("turn/completed", after=mark)
    assert (workdir / "made.txt").exists()


async def test_a_prompt_rule_under_never_is_a_refusal(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    _rules(home, 'prefix_rule(pattern=["touch"], decision="prompt")\n')
    _model_runs(fake_model, "touch made.txt", "c1")
    server = await start_app(home=home)
    thread_id = await _thread(server, workdir, "workspace-write", "never")
    mark = await _turn(server, thread_id)
    await server.notification("turn/completed", after=mark)
    assert _output(fake_model, "c1") == "approval required by policy, but AskForApproval is set to Never"
    assert not (workdir / "made.txt").exists()


async def test_an_allow_rule_runs_the_command_outside_the_sandbox(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    _rules(home, 'prefix_rule(pattern=["touch"], decision="allow")\n')
    _model_runs(fake_model, "touch made.txt", "c1")
    server = await start_app(home=home)
    # A read-only sandbox would refuse the write: only the rule lets it happen.
    thread_id = await _thread(server, workdir, "read-only", "on-request")
    mark = await _turn(server, thread_id)
    await server.notification("turn/completed", after=mark)
    assert _asked(server, mark) == []
    assert (workdir / "made.txt").exists()


async def test_accepting_with_an_amendment_saves_a_rule_the_next_turn_uses(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    _model_runs(fake_model, "touch made.txt", "c1")
    _model_runs(fake_model, "touch made.txt", "c2")
    server = await start_app(home=home)
    thread_id = await _thread(server, workdir, "workspace-write", "untrusted")
    mark = await _turn(server, thread_id)
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    amendment = {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch", "made.txt"]}}
    assert request["params"]["proposedExecpolicyAmendment"] == ["touch", "made.txt"]
    assert request["params"]["availableDecisions"] == ["accept", amendment, "cancel"]
    await server.respond(request["id"], {"decision": amendment})
    await server.notification("turn/completed", after=mark)
    assert (workdir / "made.txt").exists()
    saved = (home / "rules" / "default.rules").read_text()
    assert saved == 'prefix_rule(pattern=["touch", "made.txt"], decision="allow")\n'

    (workdir / "made.txt").unlink()
    mark = await _turn(server, thread_id)
    await server.notification("turn/completed", after=mark)
    assert _asked(server, mark) == []
    assert (workdir / "made.txt").exists()
