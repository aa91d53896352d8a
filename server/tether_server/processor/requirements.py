"""Managed requirements applied to a thread's settings on `thread/start` and `turn/start`.

As Codex 0.169.0 does: on `thread/start` a sandbox mode the requirements forbid falls back to
read-only and an approval policy they forbid to the first allowed one, each with a
`configWarning` (to the asking connection, before the answer) and a `warning` for the thread
(after it); `never` approvals with a forbidden `danger-full-access` are refused, since together
they would leave the thread unable to do anything without saying so. On `turn/start` a forbidden
override is refused ("invalid thread settings override: …").
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from tether_protocol import server_methods as sm
from tether_protocol.v2 import notifications as n
from tether_server.config.requirements import Requirements, load_requirements, unchanged_requirements
from tether_server.core.settings import TurnSettings, sandbox_policy_for_mode
from tether_server.errors import InvalidRequest
from tether_server.rpc.connection import Connection
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification

_MODES = {
    "readOnly": "read-only",
    "workspaceWrite": "workspace-write",
    "dangerFullAccess": "danger-full-access",
}
# Codex names the values as its Rust enums in these messages.
_APPROVAL_NAMES = {
    "untrusted": "UnlessTrusted",
    "on-failure": "OnFailure",
    "on-request": "OnRequest",
    "never": "Never",
}
_MODE_NAMES = {
    "read-only": "ReadOnly",
    "workspace-write": "WorkspaceWrite",
    "danger-full-access": "DangerFullAccess",
}
NEVER_WITHOUT_SANDBOX = (
    'failed to load configuration: `approval_policy = "never"` cannot be used because requirements do not '
    'allow `sandbox_mode = "danger-full-access"`; Codex would fall back to read-only permissions with '
    "approvals disabled. Choose an `approval_policy` based on what you need, such as `on-request`, or "
    "choose an allowed sandbox mode."
)


def _details(key: str, value: str, allowed: tuple[str, ...], names: dict[str, str], req: Requirements) -> str:
    listed = ", ".join(names[a] for a in allowed)
    where = f"(set by {req.path})"
    return f"invalid value for `{key}`: `{names[value]}` is not in the allowed set [{listed}] {where}"


def _disallowed(
    key: str, value: str, allowed: tuple[str, ...], fallback: str, names: dict[str, str], req: Requirements
) -> str:
    return (
        f"Configured value for `{key}` is disallowed by requirements; falling back to required value "
        f"{names[fallback]}. Details: {_details(key, value, allowed, names, req)}"
    )


def apply(req: Requirements | None, settings: TurnSettings) -> tuple[TurnSettings, list[str]]:
    """`settings` within `req`, and a warning for each value that had to change.

    Raises:
        InvalidRequest: `never` approvals with a forbidden `danger-full-access` sandbox.
    """
    if req is None:
        return settings, []
    warnings: list[str] = []
    approval = settings.approval_policy
    allowed_approvals = req.approval_policies
    if allowed_approvals and isinstance(approval, str) and approval not in allowed_approvals:
        fallback = allowed_approvals[0]
        warnings.append(
            _disallowed("approval_policy", approval, allowed_approvals, fallback, _APPROVAL_NAMES, req)
        )
        approval = fallback
    policy = settings.sandbox_policy
    mode = _MODES.get(str(policy.get("type"))) if isinstance(policy, dict) else None
    allowed_modes = req.sandbox_modes
    if allowed_modes and mode is not None and mode not in allowed_modes:
        if approval == "never" and mode == "danger-full-access":
            raise InvalidRequest(NEVER_WITHOUT_SANDBOX)
        warnings.insert(0, _disallowed("sandbox_mode", mode, allowed_modes, "read-only", _MODE_NAMES, req))
        policy = sandbox_policy_for_mode("read-only")
    return replace(settings, approval_policy=approval, sandbox_policy=policy), warnings


def refuse_forbidden(req: Requirements | None, settings: TurnSettings) -> None:
    """A turn's overrides are checked, not corrected: Codex refuses a forbidden one.

    Raises:
        InvalidRequest: "invalid thread settings override: …" naming the value and the allowed set.
    """
    if req is None:
        return
    policy = settings.sandbox_policy
    mode = _MODES.get(str(policy.get("type"))) if isinstance(policy, dict) else None
    if req.sandbox_modes and mode is not None and mode not in req.sandbox_modes:
        details = _details("sandbox_mode", mode, req.sandbox_modes, _MODE_NAMES, req)
        raise InvalidRequest(f"invalid thread settings override: {details}")
    approval = settings.approval_policy
    if req.approval_policies and isinstance(approval, str) and approval not in req.approval_policies:
        details = _details("approval_policy", approval, req.approval_policies, _APPROVAL_NAMES, req)
        raise InvalidRequest(f"invalid thread settings override: {details}")


async def _requirements() -> Requirements | None:
    known, req = unchanged_requirements()
    return req if known else await asyncio.to_thread(load_requirements)


async def check_turn(settings: TurnSettings) -> None:
    """Read the requirements (off the loop when they changed) and refuse a turn they forbid."""
    refuse_forbidden(await _requirements(), settings)


async def enforce(settings: TurnSettings) -> tuple[TurnSettings, list[str]]:
    """Read the requirements (off the loop when they changed) and apply them."""
    return apply(await _requirements(), settings)


def warn_now(ctx: RequestContext, warnings: list[str]) -> None:
    """The `configWarning`s, to the asking connection before the answer."""
    for text in warnings:
        send_notification([ctx.connection], sm.CONFIG_WARNING, n.ConfigWarningNotification(summary=text))


def warn_thread(conn: Connection, thread_id: str, warnings: list[str]) -> None:
    """The thread's `warning`s (after the answer and thread/started)."""
    for text in warnings:
        send_notification([conn], sm.WARNING, n.WarningNotification(thread_id=thread_id, message=text))
