"""Params validation with short human messages (no pydantic dump on the wire)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ValidationError

from tether_protocol import WireModel
from tether_protocol.spec import AnyMethodSpec, MethodSpec
from tether_server.errors import InvalidParams, InvalidRequest


def _loc(loc: tuple[int | str, ...]) -> str:
    parts = [str(p) for p in loc if not (isinstance(p, str) and p[:1].isupper() and "[" not in p)]
    return ".".join(parts) or "params"


def describe(exc: ValidationError) -> str:
    first = exc.errors(include_url=False, include_context=False)[0]
    where = _loc(tuple(first["loc"]))
    kind = first["type"]
    if kind == "missing":
        return f"Invalid params: missing field `{where}`"
    detail = first["msg"].split("\n")[0]
    more = exc.error_count() - 1
    suffix = f" (and {more} more)" if more > 0 else ""
    return f"Invalid params: `{where}`: {detail}{suffix}"


P = TypeVar("P", bound=WireModel)


def parse_params(spec: MethodSpec[P, Any], raw: Any) -> P:
    """Validate raw params against the method's model.

    Missing or null params count as `{}` (Codex insists on `params`; accepting its absence is
    an additive leniency).
    """
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidParams("Invalid params: expected an object")
    try:
        return spec.params.model_validate(raw)
    except ValidationError as exc:
        raise InvalidParams(describe(exc)) from None


def check_experimental(spec: AnyMethodSpec, raw: Any, experimental_api: bool) -> None:
    """Refuse experimental methods, fields and enum variants without the capability (protocol §5)."""
    if experimental_api:
        return
    if spec.experimental:
        raise InvalidRequest(f"{spec.name} requires experimentalApi capability")
    if not isinstance(raw, dict):
        return
    for name in spec.experimental_fields:
        if raw.get(name) is not None:
            raise InvalidRequest(f"{spec.name}.{name} requires experimentalApi capability")
    policy = raw.get("approvalPolicy")
    if isinstance(policy, dict) and "granular" in policy:
        raise InvalidRequest("askForApproval.granular requires experimentalApi capability")
