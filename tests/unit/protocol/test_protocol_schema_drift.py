"""The checked-in schema and TypeScript match what the models generate."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from tests.unit.protocol import reference_samples as pairs
from tests.unit.protocol import reference_schema as ref

from tether_protocol.schema_export import BUNDLE_NAME, export_json_schema, schema_documents
from tether_protocol.ts_export import export_typescript

CHECKED_IN = Path(__file__).resolve().parents[3] / "protocol" / "tether_protocol" / "schema"
REGENERATE = (
    "regenerate with: tether app-server generate-json-schema --out protocol/tether_protocol/schema"
    " && tether app-server generate-ts --out protocol/tether_protocol/schema/ts"
)


def test_checked_in_json_schema_matches_the_models(tmp_path: Path) -> None:
    written = export_json_schema(tmp_path)
    assert {p.name for p in written} == {
        "ClientRequest.json",
        "ServerNotification.json",
        "ServerRequest.json",
        BUNDLE_NAME,
    }
    for path in written:
        checked_in = CHECKED_IN / path.name
        assert checked_in.exists(), f"{checked_in} missing; {REGENERATE}"
        assert checked_in.read_bytes() == path.read_bytes(), f"{path.name} is stale; {REGENERATE}"


def test_checked_in_typescript_matches_the_models(tmp_path: Path) -> None:
    (written,) = export_typescript(tmp_path / "ts")
    checked_in = CHECKED_IN / "ts" / written.name
    assert checked_in.exists(), f"{checked_in} missing; {REGENERATE}"
    assert checked_in.read_bytes() == written.read_bytes(), f"ts/{written.name} is stale; {REGENERATE}"


def test_export_is_deterministic(tmp_path: Path) -> None:
    first = [p.read_bytes() for p in export_json_schema(tmp_path / "a")]
    second = [p.read_bytes() for p in export_json_schema(tmp_path / "b")]
    assert first == second


def test_exported_schemas_are_valid_draft7_and_accept_a_real_notification(tmp_path: Path) -> None:
    for path in export_json_schema(tmp_path):
        Draft7Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))
    notifications = json.loads((tmp_path / "ServerNotification.json").read_text(encoding="utf-8"))
    envelope = {"method": "thread/closed", "params": {"threadId": "t"}, "emittedAtMs": 1}
    assert not ref.problems(Draft7Validator(notifications), envelope)
    assert ref.problems(Draft7Validator(notifications), {"method": "thread/closed", "params": {}})


@cache
def _own_definitions() -> dict[str, Any]:
    defs: dict[str, Any] = schema_documents()[BUNDLE_NAME]["definitions"]
    return defs


def _own_validator(name: str) -> Draft7Validator:
    return Draft7Validator({"$ref": f"#/definitions/{name}", "definitions": _own_definitions()})


def test_exported_schema_accepts_every_sample_under_its_own_type_name() -> None:
    models = [m for _, m in pairs.REFERENCE_SAMPLES] + list(pairs.SCHEMALESS_MODELS.values())
    defs = _own_definitions()
    checked = 0
    for model in models:
        name = type(model).__name__
        if name in defs:
            assert not ref.problems(_own_validator(name), model.wire()), name
            checked += 1
    assert checked > 150


def test_server_only_types_list_every_key_as_required() -> None:
    defs = _own_definitions()
    assert "forkedFromId" in defs["Thread"]["required"]
    assert "error" in defs["Turn"]["required"]
    assert "text_elements" not in defs["TextInput"].get("required", [])
    assert "approvalId" not in defs["CommandExecutionRequestApprovalParams"]["required"]
