"""The shape of one entry in the method table."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from tether_protocol.common import WireModel
from tether_protocol.lazy_models import resolved

P = TypeVar("P", bound=WireModel)
R = TypeVar("R", bound=WireModel)


class MethodSpec(Generic[P, R]):
    """A client→server request method: params model `P` in, result model `R` out.

    The two type parameters let the server's handler map check (under mypy) that the handler
    bound to a spec takes `P` and returns `R`.
    `scope` names the params attribute (Python name) whose value serialises requests: every
    request carrying the same value runs FIFO across all connections (Codex keys on `threadId`).
    `experimental_fields` are wire names of params fields that need `experimentalApi`.
    The table may give the models as `lazy_models` stand-ins: `params` and `result` import them
    the first time they are read.
    """

    __slots__ = ("_params", "_result", "doc", "experimental", "experimental_fields", "name", "scope")

    def __init__(
        self,
        name: str,
        params: type[P],
        result: type[R],
        scope: str | None = None,
        experimental: bool = False,
        experimental_fields: frozenset[str] = frozenset(),
        doc: str = "",
    ) -> None:
        self.name = name
        self._params = params
        self._result = result
        self.scope = scope
        self.experimental = experimental
        self.experimental_fields = experimental_fields
        self.doc = doc

    @property
    def params(self) -> type[P]:
        model: type[P] = resolved(self._params)
        self._params = model
        return model

    @property
    def result(self) -> type[R]:
        model: type[R] = resolved(self._result)
        self._result = model
        return model

    def __repr__(self) -> str:
        return f"MethodSpec({self.name!r})"


AnyMethodSpec = MethodSpec[Any, Any]


class NotificationSpec(Generic[P]):
    """A server→client notification: its name bound to its params model `P`.

    Senders take the spec and a `P` (or a `WireParams[P]`), so that under mypy a notification
    cannot go out with another notification's params. `broadcast` notifications reach every
    initialized connection, subscribed to their thread or not (protocol §9 "B"); the others go
    to the thread's subscribers, or to the one connection the sender names. The params model
    may be given as a `lazy_models` stand-in, imported when `params` is first read.
    """

    __slots__ = ("_params", "broadcast", "doc", "name")

    def __init__(self, name: str, params: type[P], broadcast: bool = False, doc: str = "") -> None:
        self.name = name
        self._params = params
        self.broadcast = broadcast
        self.doc = doc

    @property
    def params(self) -> type[P]:
        model: type[P] = resolved(self._params)
        self._params = model
        return model

    def __repr__(self) -> str:
        return f"NotificationSpec({self.name!r})"


AnyNotificationSpec = NotificationSpec[Any]


class WireParams(dict[str, Any], Generic[P]):
    """Params already in the wire shape of the model `P`: camelCase keys, JSON values, key order.

    The projection of core events builds these instead of `P` itself: it runs once per streamed
    delta, where building and dumping a model costs several times the rest of the path, and a
    model's dump would reorder the keys of nested items. The type parameter still ties the dict
    to its spec for mypy; the projection's unit tests validate every one against `P`.
    """

    __slots__ = ()


class ServerRequestSpec:
    """A server→client request (approvals and the like); models as for `MethodSpec`."""

    __slots__ = ("_params", "_result", "doc", "name")

    def __init__(self, name: str, params: type[WireModel], result: type[WireModel], doc: str = "") -> None:
        self.name = name
        self._params = params
        self._result = result
        self.doc = doc

    @property
    def params(self) -> type[WireModel]:
        model: type[WireModel] = resolved(self._params)
        self._params = model
        return model

    @property
    def result(self) -> type[WireModel]:
        model: type[WireModel] = resolved(self._result)
        self._result = model
        return model

    def __repr__(self) -> str:
        return f"ServerRequestSpec({self.name!r})"
