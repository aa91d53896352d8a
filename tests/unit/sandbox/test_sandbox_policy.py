"""SandboxPolicy: wire shapes, config modes and effective writable roots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tether_server.errors import InvalidParams
from tether_server.sandbox.policy import SandboxPolicy


@pytest.mark.parametrize(
    "wire",
    [
        {"type": "dangerFullAccess"},
        {"type": "readOnly", "networkAccess": False},
        {"type": "readOnly", "networkAccess": True},
        {
            "type": "workspaceWrite",
            "writableRoots": ["/srv/a", "/srv/b"],
            "networkAccess": True,
            "excludeTmpdirEnvVar": True,
            "excludeSlashTmp": False,
        },
        {"type": "externalSandbox", "networkAccess": "restricted"},
        {"type": "externalSandbox", "networkAccess": "enabled"},
    ],
)
def test_wire_policies_round_trip_unchanged(wire: dict[str, Any]) -> None:
    assert SandboxPolicy.from_wire(wire).to_wire() == wire


def test_omitted_wire_fields_take_their_documented_defaults() -> None:
    policy = SandboxPolicy.from_wire({"type": "workspaceWrite"})
    assert policy == SandboxPolicy(kind="workspace-write")
    assert policy.network_access is False
    assert SandboxPolicy.from_wire({"type": "externalSandbox"}).network_access is False


@pytest.mark.parametrize(
    "wire",
    [
        {"type": "sandboxOfDoom"},
        {},
        {"type": "readOnly", "networkAccess": "yes"},
        {"type": "workspaceWrite", "writableRoots": "/srv"},
        {"type": "workspaceWrite", "writableRoots": ["relative/path"]},
        {"type": "externalSandbox", "networkAccess": True},
    ],
)
def test_malformed_wire_policies_are_rejected_as_invalid_params(wire: dict[str, Any]) -> None:
    with pytest.raises(InvalidParams):
        SandboxPolicy.from_wire(wire)


def test_config_modes_map_to_policies() -> None:
    assert SandboxPolicy.from_mode("read-only").kind == "read-only"
    assert SandboxPolicy.from_mode("danger-full-access").to_wire() == {"type": "dangerFullAccess"}
    policy = SandboxPolicy.from_mode("workspace-write", writable_roots=["/srv/x"], network_access=True)
    assert policy.writable_roots == (Path("/srv/x"),)
    assert policy.network_access is True


def test_an_unknown_config_mode_is_rejected() -> None:
    with pytest.raises(InvalidParams, match="unknown sandbox mode"):
        SandboxPolicy.from_mode("yolo")


def test_only_read_only_and_workspace_write_wrap_commands() -> None:
    assert SandboxPolicy(kind="read-only").wraps_commands
    assert SandboxPolicy(kind="workspace-write").wraps_commands
    assert not SandboxPolicy(kind="danger-full-access").wraps_commands
    assert not SandboxPolicy(kind="external").wraps_commands


def test_workspace_write_roots_are_cwd_then_configured_then_tmpdir_then_slash_tmp() -> None:
    policy = SandboxPolicy(kind="workspace-write", writable_roots=(Path("/srv/extra"),))
    roots = policy.effective_writable_roots(Path("/w"), {"TMPDIR": "/var/tmp/me"})
    assert roots == (Path("/w"), Path("/srv/extra"), Path("/var/tmp/me"), Path("/tmp"))


def test_excluded_tmp_locations_are_not_writable_roots() -> None:
    policy = SandboxPolicy(kind="workspace-write", exclude_tmpdir_env_var=True, exclude_slash_tmp=True)
    assert policy.effective_writable_roots(Path("/w"), {"TMPDIR": "/var/tmp/me"}) == (Path("/w"),)


def test_read_only_policy_has_no_writable_roots() -> None:
    assert SandboxPolicy(kind="read-only").effective_writable_roots(Path("/w"), {"TMPDIR": "/x"}) == ()
