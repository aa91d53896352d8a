"""Answering server requests: the handler type and safe defaults that never leave a turn hanging."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from tether_client.messages import ServerRequest
from tether_protocol.common import WireModel


class Deferred:
    """Type of DEFERRED."""


DEFERRED: Final = Deferred()
"""Returned by an approval handler that will answer later itself, with `Client.respond`."""

ApprovalHandler = Callable[[ServerRequest], Awaitable[Mapping[str, Any] | WireModel | Deferred | None]]
"""Answers one server request with its result; None means "use the safe default"."""

_DECLINE: dict[str, dict[str, Any]] = {
    "item/commandExecution/requestApproval": {"decision": "decline"},
    "item/fileChange/requestApproval": {"decision": "decline"},
    "item/tool/requestUserInput": {"answers": {}},
    "item/permissions/requestApproval": {"permissions": {}, "scope": "turn"},
    "mcpServer/elicitation/request": {"action": "decline", "content": None},
}

_ACCEPT: dict[str, dict[str, Any]] = {
    "item/commandExecution/requestApproval": {"decision": "accept"},
    "item/fileChange/requestApproval": {"decision": "accept"},
}


def safe_default(request: ServerRequest) -> dict[str, Any] | None:
    """The declining answer to `request`, or None when the SDK does not know the method.

    Unknown methods are answered with a JSON-RPC error by the client, which the server treats as
    a refusal, so no request is ever left unanswered.
    """
    answer = _DECLINE.get(request.method)
    return dict(answer) if answer is not None else None


async def decline_all(request: ServerRequest) -> dict[str, Any] | None:
    """The default handler: decline every approval, answer questions with nothing."""
    return safe_default(request)


async def accept_all(request: ServerRequest) -> dict[str, Any] | None:
    """Accept every command and file change (only for trusted, sandboxed runs)."""
    answer = _ACCEPT.get(request.method)
    return dict(answer) if answer is not None else safe_default(request)
