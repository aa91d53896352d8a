"""What the server sends unprompted: notifications and server→client requests, typed when known."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from tether_protocol.common import WireModel
from tether_protocol.jsonrpc import RequestId
from tether_protocol.methods import SERVER_NOTIFICATIONS, SERVER_REQUESTS


def _typed(model: type[WireModel] | None, params: dict[str, Any]) -> WireModel | None:
    if model is None:
        return None
    try:
        return model.model_validate(params)
    except ValidationError:
        return None


@dataclass(frozen=True)
class Notification:
    """One server notification.

    Attributes:
        method: e.g. `item/agentMessage/delta`.
        params: the params exactly as received (camelCase keys).
        payload: `params` parsed into the method table's model; None for unknown methods or
            params the model cannot read (newer servers may send more than this SDK knows).
        raw: the whole message (with `emittedAtMs` and, for thread events, `seq`).
    """

    method: str
    params: dict[str, Any]
    payload: WireModel | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> Notification:
        method = str(message["method"])
        params = message.get("params") or {}
        spec = SERVER_NOTIFICATIONS.get(method)
        return cls(method, params, _typed(spec.params if spec else None, params), message)

    @property
    def thread_id(self) -> str | None:
        """The thread this notification is about, when it names one."""
        value = self.params.get("threadId")
        if value is None and isinstance(self.params.get("thread"), dict):
            value = self.params["thread"].get("id")
        return value if isinstance(value, str) else None

    @property
    def turn_id(self) -> str | None:
        """The turn this notification is about, when it names one."""
        value = self.params.get("turnId")
        if value is None and isinstance(self.params.get("turn"), dict):
            value = self.params["turn"].get("id")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class ServerRequest:
    """A request from the server (an approval, a question) that the client must answer.

    Attributes:
        id: the request id, echoed in the answer.
        method: e.g. `item/commandExecution/requestApproval`.
        params: as received.
        payload: `params` parsed into the method table's model, or None.
    """

    id: RequestId
    method: str
    params: dict[str, Any]
    payload: WireModel | None = None

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> ServerRequest:
        method = str(message["method"])
        params = message.get("params") or {}
        spec = SERVER_REQUESTS.get(method)
        return cls(message["id"], method, params, _typed(spec.params if spec else None, params))
