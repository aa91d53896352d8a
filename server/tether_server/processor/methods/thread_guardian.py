"""`thread/approveGuardianDeniedAction`, as Codex 0.169.0 answers it.

The event is an assessment of the automatic approval reviewer, in its own snake_case shape,
checked as Codex's parser checks it (-32600, "invalid Guardian denial event: ..."). Codex keeps no
record of its reviewer's denials to match the event against: any well-formed event is answered
`{}`, and a `denied` one tells the model, through a developer message appended to the loaded
thread's history, that the user allowed that exact action. Other statuses change nothing.
"""

from __future__ import annotations

import json
from typing import Any

from tether_protocol.v2 import thread_desktop as td
from tether_server.errors import InvalidRequest
from tether_server.processor.state import ServerState
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext

_STATUSES = ("in_progress", "approved", "denied", "timed_out", "aborted")
_ACTIONS = (
    "command",
    "execve",
    "write_stdin",
    "apply_patch",
    "network_access",
    "mcp_tool_call",
    "request_permissions",
)
_REQUIRED = ("id", "status", "action")
_OPTIONAL_TEXT = ("target_item_id", "turn_id", "rationale")

_NOTE = (
    "The user reviewed an action that the automatic approval reviewer had rejected, and allowed it.\n\n"
    "This allows that exact action, with the same arguments, in the context it was requested in; "
    "it allows no other action, however similar.\n\n"
    "Allowed action:\n"
)


async def approve(
    state: ServerState, ctx: RequestContext, params: td.ThreadApproveGuardianDeniedActionParams
) -> td.ThreadApproveGuardianDeniedActionResponse:
    check_thread_id(params.thread_id)
    problem = _event_problem(params.event)
    if problem is not None:
        raise InvalidRequest(f"invalid Guardian denial event: {problem}")
    handle = state.threads.get(params.thread_id)
    if handle is None:
        raise InvalidRequest(f"thread not found: {params.thread_id}")
    event: dict[str, Any] = params.event
    if event["status"] == "denied":
        allowed = json.dumps({"action": event["action"], "outcome": "allowed"}, indent=2, ensure_ascii=False)
        note = {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": _NOTE + allowed}],
        }
        await handle.inject_history([note])
    return td.ThreadApproveGuardianDeniedActionResponse()


def _event_problem(event: Any) -> str | None:
    """Why `event` is no reviewer assessment, in the words of Codex's parser; None when it is one."""
    if not isinstance(event, dict):
        return f"invalid type: {_kind(event)}, expected struct GuardianAssessmentEvent"
    for name, value in event.items():
        problem = _field_problem(name, value)
        if problem is not None:
            return problem
    missing = next((name for name in _REQUIRED if name not in event), None)
    return None if missing is None else f"missing field `{missing}`"


def _field_problem(name: str, value: Any) -> str | None:
    if name == "id" or (name in _OPTIONAL_TEXT and value is not None):
        return None if isinstance(value, str) else f"invalid type: {_kind(value)}, expected a string"
    if name == "status":
        return _variant_problem(value, _STATUSES)
    if name == "action":
        if not isinstance(value, dict):
            return f"invalid type: {_kind(value)}, expected internally tagged enum GuardianAssessmentAction"
        if "type" not in value:
            return "missing field `type`"
        return _variant_problem(value["type"], _ACTIONS)
    return None


def _variant_problem(value: Any, variants: tuple[str, ...]) -> str | None:
    if not isinstance(value, str):
        return f"invalid type: {_kind(value)}, expected variant identifier"
    if value in variants:
        return None
    expected = ", ".join(f"`{v}`" for v in variants)
    return f"unknown variant `{value}`, expected one of {expected}"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return f'string "{value}"'
    return "sequence" if isinstance(value, list) else "map"
