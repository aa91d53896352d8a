"""Base model and shared value types for the wire contract."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

JsonValue = Any
"""Any JSON value; kept loose on purpose where the protocol carries opaque data."""


class WireModel(BaseModel):
    """Base of every wire type: snake_case in Python, camelCase on the wire.

    Unknown fields are ignored on input (Codex does the same); `None` is emitted as
    `null` because Codex clients expect the keys to be present.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        frozen=False,
        # Validators are built on first use: the daemon starts faster and only pays for the
        # methods a client actually calls.
        defer_build=True,
    )

    def wire(self) -> dict[str, Any]:
        """The JSON-ready dict of this model, as it goes on the wire."""
        return self.model_dump(mode="json", by_alias=True)


class EmptyParams(WireModel):
    """Params of methods that take none (`{}`)."""


class EmptyResult(WireModel):
    """Result of methods that answer `{}`."""
