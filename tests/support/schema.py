"""Validate what Tether sends against the reference Codex 0.169.0 JSON Schema."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from pydantic import ValidationError

from tether_protocol.methods import CLIENT_METHODS, SERVER_NOTIFICATIONS

REFERENCE = Path(__file__).resolve().parents[2] / "conformance" / "reference"
"""The stable schema and transcripts of Codex 0.169.0, carried in the repository (see its README)."""
EXPERIMENTAL = Path(__file__).resolve().parents[2] / "conformance" / "reference-experimental"
"""The `--experimental` schema of the same binary: methods clients use that the stable one lacks."""


def reference_dir() -> Path:
    if REFERENCE.is_dir():
        return REFERENCE
    raise FileNotFoundError(f"reference schema directory not found: {REFERENCE}")


@cache
def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((reference_dir() / name).read_text())
    return data


@cache
def _defs() -> dict[str, Any]:
    defs: dict[str, Any] = _load("codex_app_server_protocol.v2.schemas.json")["definitions"]
    return defs


@cache
def _experimental_defs() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (EXPERIMENTAL / "codex_app_server_protocol.v2.schemas.json").read_text()
    )
    return data


@cache
def _notification_validator() -> jsonschema.Draft7Validator:
    root = _load("ServerNotification.json")
    return jsonschema.Draft7Validator(root)


@cache
def _server_request_validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(_load("ServerRequest.json"))


def _response_def_name(method: str, defs: dict[str, Any]) -> str | None:
    spec = CLIENT_METHODS.get(method)
    if spec is not None and spec.result.__name__ in defs:
        return spec.result.__name__
    guess = "".join(part[:1].upper() + part[1:] for part in method.split("/")) + "Response"
    return guess if guess in defs else None


def _response_schema(method: str) -> dict[str, Any] | None:
    """The stable reference's result schema; else the experimental one's (for experimental methods)."""
    for root in (_load("codex_app_server_protocol.v2.schemas.json"), _experimental_defs()):
        name = _response_def_name(method, root["definitions"])
        if name is not None:
            return {"$ref": f"#/definitions/{name}", "definitions": root["definitions"]}
    return None


def response_errors(method: str, result: dict[str, Any]) -> list[str]:
    if method == "initialize":
        v1 = _load("v1/InitializeResponse.json")
        return [e.message for e in jsonschema.Draft7Validator(v1).iter_errors(result)]
    schema = _response_schema(method)
    if schema is None:
        return []
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in jsonschema.Draft7Validator(schema).iter_errors(result)
    ]


def notification_errors(message: dict[str, Any]) -> list[str]:
    envelope = {k: v for k, v in message.items() if k in ("method", "params")}
    validator = _notification_validator()
    errors = list(validator.iter_errors(envelope))
    if not errors:
        return []
    # Narrow to the branch for this method for a readable message.
    defs = _load("ServerNotification.json")
    for branch in defs["oneOf"]:
        if message.get("method") in branch["properties"]["method"].get("enum", []):
            schema = {**branch, "definitions": defs["definitions"]}
            return [
                f"{message['method']}: {'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in jsonschema.Draft7Validator(schema).iter_errors(envelope)
            ]
    return [f"{message.get('method')}: not a notification of the reference protocol"]


def server_request_errors(message: dict[str, Any]) -> list[str]:
    envelope = {k: v for k, v in message.items() if k in ("id", "method", "params")}
    return [e.message for e in _server_request_validator().iter_errors(envelope)][:1]


def undeclared_errors(message: dict[str, Any]) -> list[str]:
    """A notification Tether sends must be in its own method table, with params its model accepts.

    The table drives the exported schema, the TypeScript and the SDK; a notification missing
    from it is one those cannot describe or parse.
    """
    method = message.get("method")
    spec = SERVER_NOTIFICATIONS.get(str(method))
    if spec is None:
        return [f"{method}: emitted but not declared in tether_protocol.methods"]
    try:
        spec.params.model_validate(message.get("params"))
    except ValidationError as exc:
        return [f"{method}: params do not fit {spec.params.__name__}: {exc.errors()[0]['msg']}"]
    return []
