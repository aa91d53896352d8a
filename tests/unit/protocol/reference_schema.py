"""Loading the Codex 0.169.0 reference JSON Schema and validating instances against it."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from tests.support.schema import EXPERIMENTAL, reference_dir

REFERENCE_DIR: Path = reference_dir()
_ROOT_FILES = ("ClientRequest.json", "ServerNotification.json", "ServerRequest.json")


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REFERENCE_DIR / name).read_text(encoding="utf-8"))
    return data


@cache
def reference_definitions() -> dict[str, Any]:
    """All reference definitions; the bundle wins, root files add what it lacks (server-request params)."""
    merged: dict[str, Any] = {}
    for name in _ROOT_FILES:
        merged.update(_load(name).get("definitions", {}))
    merged.update(_load("codex_app_server_protocol.v2.schemas.json")["definitions"])
    # Methods only the experimental surface has (thread/search, …) are checked against it.
    experimental = json.loads((EXPERIMENTAL / "codex_app_server_protocol.v2.schemas.json").read_text())
    for name, definition in experimental["definitions"].items():
        merged.setdefault(name, definition)
    return merged


@cache
def definition_validator(name: str) -> Draft7Validator:
    """A validator for one `#/definitions/<name>` entry."""
    return Draft7Validator({"$ref": f"#/definitions/{name}", "definitions": reference_definitions()})


@cache
def root_validator(file_name: str) -> Draft7Validator:
    """A validator for a whole root file such as `ServerNotification.json`."""
    return Draft7Validator(_load(file_name))


def problems(validator: Draft7Validator, instance: Any) -> list[str]:
    """Readable validation errors (empty when the instance is valid)."""
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(instance)]
