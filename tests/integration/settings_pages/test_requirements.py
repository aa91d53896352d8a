"""Managed requirements (`requirements.toml` in the system config folder), read and enforced.

Observed on Codex 0.169.0 with /etc/codex/requirements.toml holding `allowed_sandbox_modes =
["read-only", "workspace-write"]` and `allowed_approval_policies = ["on-request", "never"]`:
- configRequirements/read: every ConfigRequirements field, null unless set, `allowedLoginMethods`
  `["api", "chatgpt"]`, the two lists as written; `supportsIndependentSpeedModes: true`.
- permissionProfile/list: `:danger-full-access` `allowed: false`, the others true.
- thread/start `sandbox: "danger-full-access"`: not refused — the thread starts read-only, a
  `configWarning` ("Configured value for `…` is disallowed by requirements; falling back to
  required value …") comes before the answer and a `warning` with the threadId after
  thread/started; `approvalPolicy: "untrusted"` falls back to the first allowed policy the same way
  ("… invalid value for `approval_policy`: `UnlessTrusted` is not in the allowed set [OnRequest,
  Never] (set by <file>)").
- turn/start with `sandboxPolicy: {"type": "dangerFullAccess"}` is refused: -32600 "invalid thread
  settings override: invalid value for `sandbox_mode`: `DangerFullAccess` is not in the allowed set
  [ReadOnly, WorkspaceWrite] (set by <file>)"; `approvalPolicy: "untrusted"` likewise
  ("… `approval_policy`: `UnlessTrusted` … [OnRequest, Never] …").
- With `allowed_approval_policies = ["never", "on-request"]`, `danger-full-access` with `untrusted`
  (falling back to never) is refused: -32600 "failed to load configuration: `approval_policy =
  \"never\"` cannot be used because requirements do not allow `sandbox_mode =
  \"danger-full-access\"`; …".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

RULES = (
    'allowed_sandbox_modes = ["read-only", "workspace-write"]\n'
    'allowed_approval_policies = ["on-request", "never"]\n'
)
READ_ONLY = {"type": "readOnly", "networkAccess": False}


def _system(tmp_path: Path, rules: str) -> Path:
    folder = tmp_path / "system"
    folder.mkdir(exist_ok=True)
    (folder / "requirements.toml").write_text(rules)
    return folder


async def test_requirements_are_read_and_listed(start_app: StartApp, tmp_path: Path) -> None:
    server = await start_app(env={"TETHER_SYSTEM_CONFIG_DIR": str(_system(tmp_path, RULES))})
    answer = await server.request("configRequirements/read")
    profiles = await server.request("permissionProfile/list", {})

    requirements = answer["requirements"]
    assert answer["supportsIndependentSpeedModes"] is True
    assert requirements["allowedSandboxModes"] == ["read-only", "workspace-write"]
    assert requirements["allowedApprovalPolicies"] == ["on-request", "never"]
    assert requirements["allowedLoginMethods"] == ["api", "chatgpt"]
    assert len(requirements) == 34
    set_fields = {"allowedSandboxModes", "allowedApprovalPolicies", "allowedLoginMethods"}
    assert all(value is None for key, value in requirements.items() if key not in set_fields)
    assert [(p["id"], p["allowed"]) for p in profiles["data"]] == [
        (":read-only", True),
        (":workspace", True),
        (":danger-full-access", False),
    ]


async def test_a_forbidden_sandbox_or_policy_falls_back_with_warnings(
    start_app: StartApp, tmp_path: Path, workdir: Path, fake_model: FakeResponsesServer
) -> None:
    system = _system(tmp_path, RULES)
    server = await start_app(env={"TETHER_SYSTEM_CONFIG_DIR": str(system)})
    where = f"(set by {system / 'requirements.toml'})"

    mark = server.mark()
    full = await server.request("thread/start", {"cwd": str(workdir), "sandbox": "danger-full-access"})
    tid = full["thread"]["id"]
    warned = await server.notification("warning", after=mark)
    before_answer = server.since(mark)
    untrusted = await server.request("thread/start", {"cwd": str(workdir), "approvalPolicy": "untrusted"})

    assert full["sandbox"] == READ_ONLY
    sandbox_text = (
        "Configured value for `sandbox_mode` is disallowed by requirements; falling back to required value "
        "ReadOnly. Details: invalid value for `sandbox_mode`: `DangerFullAccess` is not in the allowed set "
        f"[ReadOnly, WorkspaceWrite] {where}"
    )
    methods = [m.get("method", "<answer>") for m in before_answer]
    assert methods.index("configWarning") < methods.index("<answer>") < methods.index("thread/started")
    assert methods.index("thread/started") < methods.index("warning")
    assert [m["params"]["summary"] for m in before_answer if m.get("method") == "configWarning"] == [
        sandbox_text
    ]
    assert warned["params"] == {"threadId": tid, "message": sandbox_text}
    assert untrusted["approvalPolicy"] == "on-request"

    refused = []
    for override in ({"sandboxPolicy": {"type": "dangerFullAccess"}}, {"approvalPolicy": "untrusted"}):
        turn = {"threadId": tid, "input": [{"type": "text", "text": "hi"}], **override}
        with pytest.raises(RpcErrorReply) as caught:
            await server.request("turn/start", turn)
        refused.append((caught.value.code, caught.value.message))
    fake_model.add(script.text_reply("ok"))
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)
    resumed = await server.request("thread/resume", {"threadId": tid})

    assert refused == [
        (
            -32600,
            "invalid thread settings override: invalid value for `sandbox_mode`: `DangerFullAccess` is not "
            f"in the allowed set [ReadOnly, WorkspaceWrite] {where}",
        ),
        (
            -32600,
            "invalid thread settings override: invalid value for `approval_policy`: `UnlessTrusted` is not "
            f"in the allowed set [OnRequest, Never] {where}",
        ),
    ]
    assert resumed["sandbox"] == READ_ONLY
    assert len(fake_model.requests) == 1  # the refused turns never reached the model


async def test_never_without_the_sandbox_it_needs_is_refused(start_app: StartApp, tmp_path: Path) -> None:
    rules = (
        'allowed_sandbox_modes = ["workspace-write", "read-only"]\n'
        'allowed_approval_policies = ["never", "on-request"]\n'
    )
    server = await start_app(env={"TETHER_SYSTEM_CONFIG_DIR": str(_system(tmp_path, rules))})
    with pytest.raises(RpcErrorReply) as caught:
        await server.request("thread/start", {"sandbox": "danger-full-access", "approvalPolicy": "untrusted"})
    listed = await server.request("thread/loaded/list", {})

    assert caught.value.code == -32600
    assert caught.value.message == (
        'failed to load configuration: `approval_policy = "never"` cannot be used because requirements '
        'do not allow `sandbox_mode = "danger-full-access"`; Codex would fall back to read-only '
        "permissions with approvals disabled. Choose an `approval_policy` based on what you need, "
        "such as `on-request`, or choose an allowed sandbox mode."
    )
    assert listed["data"] == []


async def test_an_unusable_requirements_file_refuses_threads(start_app: StartApp, tmp_path: Path) -> None:
    folder = _system(tmp_path, "allowed_sandbox_modes = 3\n")
    server = await start_app(env={"TETHER_SYSTEM_CONFIG_DIR": str(folder)})
    refused = []
    for rules in ("allowed_sandbox_modes = 3\n", 'allowed_sandbox_modes = ["workspace-write"]\n'):
        (folder / "requirements.toml").write_text(rules)
        with pytest.raises(RpcErrorReply) as caught:
            await server.request("thread/start", {})
        refused.append((caught.value.code, caught.value.message))
    listed = await server.request("thread/loaded/list", {})

    assert refused[0][0] == -32600 and "requirements.toml" in refused[0][1]
    # Codex refuses to start with this message; Tether refuses threads until the file is fixed.
    assert refused[1] == (
        -32600,
        "invalid value for `allowed_sandbox_modes`: `[WorkspaceWrite]` is not in the allowed set "
        f"must include 'read-only' to allow any PermissionProfile (set by {folder / 'requirements.toml'})",
    )
    assert listed["data"] == []


async def test_requirements_written_removed_or_edited_while_the_daemon_runs_apply_to_the_next_thread(
    start_app: StartApp, tmp_path: Path
) -> None:
    folder = tmp_path / "system"
    folder.mkdir()
    server = await start_app(env={"TETHER_SYSTEM_CONFIG_DIR": str(folder)})
    full = {"sandbox": "danger-full-access", "approvalPolicy": "on-request"}
    sandboxes = [(await server.request("thread/start", full))["sandbox"]["type"]]
    (folder / "requirements.toml").write_text(RULES)  # none before: now they forbid full access
    sandboxes.append((await server.request("thread/start", full))["sandbox"]["type"])
    # Edited to allow it again, then removed.
    (folder / "requirements.toml").write_text(
        RULES.replace('"read-only", "workspace-write"', '"read-only", "danger-full-access"')
    )
    sandboxes.append((await server.request("thread/start", full))["sandbox"]["type"])
    (folder / "requirements.toml").unlink()
    sandboxes.append((await server.request("thread/start", full))["sandbox"]["type"])

    assert sandboxes == ["dangerFullAccess", "readOnly", "dangerFullAccess", "dangerFullAccess"]
