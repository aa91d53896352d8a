"""Managed requirements: `requirements.toml` in the system config folder, as Codex 0.169.0 reads
`/etc/codex/requirements.toml` (Tether: `$TETHER_SYSTEM_CONFIG_DIR`, default `/etc/tether`).

An administrator limits the approval policies and sandbox modes users may pick. Tether honours
`allowed_approval_policies` and `allowed_sandbox_modes` (which must allow read-only, as Codex
insists); a requirements file that cannot be read, does not parse or breaks that rule fails
closed (threads and turns are refused until it is fixed) rather than lifting the limits it was
meant to set.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether_server.config.hooks import EVENTS
from tether_server.config.layers import file_stamp, system_dir
from tether_server.errors import ConfigError

FILE = "requirements.toml"
APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
_MODE_NAMES = {
    "read-only": "ReadOnly",
    "workspace-write": "WorkspaceWrite",
    "danger-full-access": "DangerFullAccess",
}
# Every field of Codex's ConfigRequirements, in its order; Tether fills the ones it honours.
WIRE_FIELDS = (
    "modelProvider", "modelProviders", "allowedLoginMethods", "cliAuthCredentialsStore", "chatgptBaseUrl",
    "additionalDeveloperInstructions", "allowedApprovalPolicies", "allowedApprovalsReviewers",
    "allowedSandboxModes", "allowedWindowsSandboxImplementations", "allowedPermissionProfiles",
    "defaultPermissions", "allowedWebSearchModes", "allowManagedHooksOnly", "allowBrowserAndComputerUse",
    "allowAppshots", "allowRemoteControl", "computerUse", "browserUse", "inAppBrowser", "featureRequirements",
    "hooks", "enforceResidency", "network", "application", "autoReview", "models", "sqliteHome", "logDir",
    "modelCatalogJson", "checkForUpdateOnStartup", "allowLoginShell", "feedback", "otel",
)  # fmt: skip


@dataclass(frozen=True)
class Requirements:
    """What the administrator allows; None means no limit."""

    path: Path
    approval_policies: tuple[str, ...] | None
    sandbox_modes: tuple[str, ...] | None
    hooks: dict[str, Any] | None = None
    """The `[hooks]` table: managed hooks, run without the user's trust (`managed_dir` names
    where their scripts live and becomes their source path)."""

    @property
    def hooks_path(self) -> Path:
        managed_dir = (self.hooks or {}).get("managed_dir")
        return Path(managed_dir) if isinstance(managed_dir, str) and managed_dir else self.path

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = dict.fromkeys(WIRE_FIELDS)
        out["allowedLoginMethods"] = ["api", "chatgpt"]
        out["allowedApprovalPolicies"] = list(self.approval_policies) if self.approval_policies else None
        out["allowedSandboxModes"] = list(self.sandbox_modes) if self.sandbox_modes else None
        out["hooks"] = _hooks_wire(self.hooks) if self.hooks is not None else None
        return out


def _hooks_wire(table: dict[str, Any]) -> dict[str, Any]:
    """The `[hooks]` table as Codex's configRequirements/read shows it: every event (an empty list
    when none), the managed folders, each handler with all of its keys."""

    def handler(h: Any) -> dict[str, Any]:
        h = h if isinstance(h, dict) else {}
        if h.get("type") == "mcp_tool":
            keys = ("server", "tool", "input", "timeoutSec", "statusMessage")
            return {"type": "mcp_tool", **{k: h.get("timeout" if k == "timeoutSec" else k) for k in keys}}
        return {
            "type": h.get("type", "command"),
            "command": h.get("command"),
            "commandWindows": h.get("command_windows"),
            "timeoutSec": h.get("timeout", h.get("timeoutSec")),
            "async": h.get("async") is True,
            "statusMessage": h.get("statusMessage"),
            "additionalContextLimit": h.get("additionalContextLimit"),
        }

    def groups(event: str) -> list[dict[str, Any]]:
        found = table.get(event)
        return [
            {"matcher": g.get("matcher"), "hooks": [handler(h) for h in g.get("hooks") or []]}
            for g in (found if isinstance(found, list) else [])
            if isinstance(g, dict)
        ]

    out: dict[str, Any] = {event: groups(event) for event in EVENTS[:2]}
    out["managedDir"] = table.get("managed_dir")
    out["windowsManagedDir"] = table.get("windows_managed_dir")
    out.update({event: groups(event) for event in EVENTS[2:]})
    return out


def _allowed(table: dict[str, Any], key: str, known: tuple[str, ...], path: Path) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v in known for v in value):
        raise ConfigError(f"{path}: `{key}` must be a list of {', '.join(known)}")
    return tuple(value)


# Each requirements file as last read, under its stat then: thread/start, turn/start and every
# turn's hooks scan read it, and it rarely changes. A file that fails to load is read again each
# time, so it keeps refusing until it is fixed.
_read: dict[Path, tuple[tuple[int, ...] | None, Requirements | None]] = {}


def unchanged_requirements(folder: Path | None = None) -> tuple[bool, Requirements | None]:
    """(True, the requirements) when the file is as it was last read, with one stat and no read
    (cheap enough for the event loop); else (False, None) and `load_requirements` must read it."""
    path = (folder or system_dir()) / FILE
    try:
        stamp = file_stamp(path)
    except OSError:
        return False, None
    known = _read.get(path)
    return (True, known[1]) if known is not None and known[0] == stamp else (False, None)


def load_requirements(folder: Path | None = None) -> Requirements | None:
    """The requirements of `folder` (the system config folder by default); None when there are none.

    Raises:
        ConfigError: the file exists but cannot be read, is not TOML, or holds a bad list.
    """
    path = (folder or system_dir()) / FILE
    try:
        stamp = file_stamp(path)  # before the read: a change meanwhile shows as a new stamp next time
    except OSError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    known = _read.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    req = _parse(path)
    _read[path] = (stamp, req)
    return req


def _parse(path: Path) -> Requirements | None:
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    modes = _allowed(table, "allowed_sandbox_modes", SANDBOX_MODES, path)
    if modes is not None and "read-only" not in modes:
        # Codex refuses to start with these words: read-only is what any profile falls back to.
        names = ", ".join(_MODE_NAMES[m] for m in modes)
        raise ConfigError(
            f"invalid value for `allowed_sandbox_modes`: `[{names}]` is not in the allowed set must include "
            f"'read-only' to allow any PermissionProfile (set by {path})"
        )
    hooks = table.get("hooks")
    policies = _allowed(table, "allowed_approval_policies", APPROVAL_POLICIES, path)
    return Requirements(path, policies, modes, hooks if isinstance(hooks, dict) else None)
