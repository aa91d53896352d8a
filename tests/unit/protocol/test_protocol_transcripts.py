"""The models accept what real Codex 0.169.0 sent and received, and re-serialise it unchanged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from jsonschema import Draft7Validator
from pydantic import ValidationError
from tests.unit.protocol import reference_schema as ref

from tether_protocol.methods import CLIENT_METHODS, SERVER_NOTIFICATIONS, SERVER_REQUESTS
from tether_protocol.schema_export import schema_documents

TRANSCRIPTS = sorted(
    p
    for p in (ref.REFERENCE_DIR / "transcripts").glob("*.jsonl")
    if not p.name.endswith("upstream-requests.jsonl")
)
_NUMERIC_PLACEHOLDERS = {"<TS>": 1796001491410, "<DUR>": 12}


@dataclass(frozen=True)
class Exchange:
    """One JSON-RPC message from a transcript, with the method it belongs to.

    `shape_rejected` marks client requests Codex refused while decoding them (`Invalid request: …`).
    """

    source: str
    kind: str
    method: str
    payload: Any
    shape_rejected: bool = False


def _concrete(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _concrete(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_concrete(v) for v in value]
    return _NUMERIC_PLACEHOLDERS.get(value, value) if isinstance(value, str) else value


def _classify(line: dict[str, Any], pending: dict[tuple[str, str, Any], str]) -> tuple[str, str] | None:
    msg, direction, conn = line["msg"], line["dir"], line.get("conn", "")
    if "method" in msg and "id" in msg:
        pending[(conn, direction, msg["id"])] = msg["method"]
        return ("client_request" if direction == "send" else "server_request", msg["method"])
    if "method" in msg:
        return ("notification", msg["method"]) if direction == "recv" else None
    asker = "send" if direction == "recv" else "recv"
    method = pending.get((conn, asker, msg.get("id")))
    if method is None or "result" not in msg:
        return None
    return ("client_result" if direction == "recv" else "server_result", method)


def _decode_error(lines: list[dict[str, Any]], start: int) -> bool:
    """Whether the answer to the request at `start` is a Codex params-decoding error."""
    request = lines[start]
    for line in lines[start + 1 :]:
        msg = line.get("msg", {})
        same = line.get("conn") == request.get("conn") and msg.get("id") == request["msg"]["id"]
        if same and line["dir"] == "recv" and "method" not in msg:
            return str(msg.get("error", {}).get("message", "")).startswith("Invalid request:")
    return False


def exchanges() -> Iterator[Exchange]:
    """Every message of every transcript, classified by kind and method."""
    for path in TRANSCRIPTS:
        lines = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines()]
        pending: dict[tuple[str, str, Any], str] = {}
        for index, line in enumerate(lines):
            found = _classify(line, pending) if "msg" in line else None
            if found is None:
                continue
            msg = _concrete(line["msg"])
            payload = msg.get("params", msg.get("result"))
            rejected = found[0] == "client_request" and _decode_error(lines, index)
            yield Exchange(f"{path.name}:{index + 1}", found[0], found[1], payload, rejected)


def _model_for(ex: Exchange) -> Any:
    if ex.kind in ("client_request", "client_result"):
        spec = CLIENT_METHODS.get(ex.method)
        return None if spec is None else (spec.params if ex.kind == "client_request" else spec.result)
    if ex.kind == "notification":
        note = SERVER_NOTIFICATIONS.get(ex.method)
        return None if note is None else note.params
    req = SERVER_REQUESTS.get(ex.method)
    return None if req is None else (req.params if ex.kind == "server_request" else req.result)


KNOWN = [ex for ex in exchanges() if _model_for(ex) is not None]


def test_transcripts_cover_the_core_message_kinds() -> None:
    kinds = {(ex.kind, ex.method) for ex in KNOWN}
    assert ("client_result", "thread/start") in kinds
    assert ("notification", "item/completed") in kinds
    assert ("server_request", "item/commandExecution/requestApproval") in kinds
    assert ("server_result", "item/commandExecution/requestApproval") in kinds


NOT_IN_THE_TABLES = {"no/such/method"}


def test_every_transcript_method_is_in_the_tables() -> None:
    unknown = {
        ex.method for ex in exchanges() if _model_for(ex) is None and ex.method not in NOT_IN_THE_TABLES
    }
    assert not unknown, f"transcript methods missing from the tables: {sorted(unknown)}"


ACCEPTED = [ex for ex in KNOWN if not ex.shape_rejected]
REJECTED = [ex for ex in KNOWN if ex.shape_rejected]


@cache
def _exported_notification_validator() -> Draft7Validator:
    return Draft7Validator(schema_documents()["ServerNotification.json"])


def _contains(wire: Any, sent: Any) -> bool:
    """`sent` survives inside `wire`; defaults may add keys, never change sent values."""
    if isinstance(sent, dict):
        return isinstance(wire, dict) and all(k in wire and _contains(wire[k], v) for k, v in sent.items())
    if isinstance(sent, list):
        return isinstance(wire, list) and len(wire) == len(sent) and all(map(_contains, wire, sent))
    return bool(wire == sent)


@pytest.mark.parametrize("ex", ACCEPTED, ids=[f"{ex.source}-{ex.method}" for ex in ACCEPTED])
def test_transcript_message_parses_and_reserialises(ex: Exchange) -> None:
    wire = _model_for(ex).model_validate(ex.payload).wire()
    if ex.kind == "client_request":
        assert _contains(wire, ex.payload), (wire, ex.payload)
    else:
        assert wire == ex.payload


NOTIFICATIONS = [ex for ex in KNOWN if ex.kind == "notification"]


@pytest.mark.parametrize("ex", NOTIFICATIONS, ids=[f"{ex.source}-{ex.method}" for ex in NOTIFICATIONS])
def test_tethers_exported_schema_accepts_real_codex_notifications(ex: Exchange) -> None:
    envelope = {"method": ex.method, "params": ex.payload, "emittedAtMs": 1}
    assert not ref.problems(_exported_notification_validator(), envelope)


@pytest.mark.parametrize("ex", REJECTED, ids=[f"{ex.source}-{ex.method}" for ex in REJECTED])
def test_requests_codex_could_not_decode_are_rejected_too(ex: Exchange) -> None:
    with pytest.raises(ValidationError):
        _model_for(ex).model_validate(ex.payload)
