"""The shape of one entry in the method table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from tether_protocol.common import WireModel

P = TypeVar("P", bound=WireModel)
R = TypeVar("R", bound=WireModel)


@dataclass(frozen=True)
class MethodSpec(Generic[P, R]):
    """A client→server request method: params model `P` in, result model `R` out.

    The two type parameters let the server's handler map check (under mypy) that the handler
    bound to a spec takes `P` and returns `R`.
    `scope` names the params attribute (Python name) whose value serialises requests: every
    request carrying the same value runs FIFO across all connections (Codex keys on `threadId`).
    `experimental_fields` are wire names of params fields that need `experimentalApi`.
    """

    name: str
    params: type[P]
    result: type[R]
    scope: str | None = None
    experimental: bool = False
    experimental_fields: frozenset[str] = field(default_factory=frozenset)
    doc: str = ""


AnyMethodSpec = MethodSpec[Any, Any]


@dataclass(frozen=True)
class NotificationSpec:
    """A server→client notification."""

    name: str
    params: type[WireModel]
    doc: str = ""


@dataclass(frozen=True)
class ServerRequestSpec:
    """A server→client request (approvals and the like)."""

    name: str
    params: type[WireModel]
    result: type[WireModel]
    doc: str = ""
