"""JSON Schema (draft-07) export of the wire contract, derived from the method tables.

Writes the same four files Codex's `generate-json-schema` writes for the core surface, with every
type under `definitions`. Output is deterministic (sorted keys, fixed ordering) so it can be checked
in and compared byte-for-byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import models_json_schema

from tether_protocol.common import WireModel
from tether_protocol.methods import CLIENT_METHODS, SERVER_NOTIFICATIONS, SERVER_REQUESTS
from tether_protocol.v2.approvals import OMITTED_WHEN_NULL

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
BUNDLE_NAME = "tether_app_server_protocol.v2.schemas.json"
_REF = "#/definitions/"
_REQUEST_ID: dict[str, Any] = {"anyOf": [{"type": "string"}, {"format": "int64", "type": "integer"}]}

_EMITTED_AT: dict[str, Any] = {"format": "int64", "type": "integer"}

Schema = dict[str, Any]


def table_models() -> list[type[WireModel]]:
    """Every params/result model the three tables name, sorted by class name."""
    found: set[type[WireModel]] = set()
    for m in CLIENT_METHODS.values():
        found.update((m.params, m.result))
    for note in SERVER_NOTIFICATIONS.values():
        found.add(note.params)
    for req in SERVER_REQUESTS.values():
        found.update((req.params, req.result))
    return sorted(found, key=lambda cls: cls.__name__)


def _tidy(node: Any) -> Any:
    """Drop pydantic's generated titles and mark `const` tag fields required (they are always sent)."""
    if isinstance(node, list):
        return [_tidy(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _tidy(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
    props = out.get("properties")
    if isinstance(props, dict):
        consts = [k for k, v in props.items() if isinstance(v, dict) and "const" in v]
        if consts:
            out["required"] = sorted(set(out.get("required", [])) | set(consts))
    return out


def _refs(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_refs(x) for x in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    own = {node["$ref"].removeprefix(_REF)} if isinstance(node.get("$ref"), str) else set()
    return own.union(*(_refs(v) for v in node.values()))


def _reachable(defs: dict[str, Schema], roots: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = [r for r in roots if r in defs]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_refs(defs[name]) - seen)
    return seen


def _input_roots() -> set[str]:
    """Types the client sends: request params and answers to server requests."""
    return {m.params.__name__ for m in CLIENT_METHODS.values()} | {
        r.result.__name__ for r in SERVER_REQUESTS.values()
    }


def _require_output_keys(defs: dict[str, Schema]) -> None:
    """Server-only types always carry every key (WireModel dumps nulls), so mark them all required.

    Types the client also sends keep pydantic's lenient `required` list.
    """
    inputs = _reachable(defs, _input_roots())
    # A type whose serializer drops some null keys declares them (`omitted_when_null`).
    own_omitted: dict[str, frozenset[str]] = {
        cls.__name__: getattr(cls, "omitted_when_null", frozenset()) for cls in table_models()
    }
    for name, schema in defs.items():
        props = schema.get("properties")
        if name not in inputs and isinstance(props, dict):
            omitted = OMITTED_WHEN_NULL | own_omitted.get(name, frozenset())
            schema["required"] = sorted(k for k in props if k not in omitted)


def definitions() -> dict[str, Schema]:
    """All wire types as draft-07 `definitions`, keyed by type name."""
    pairs = [(cls, "validation") for cls in table_models()]
    _, bundle = models_json_schema(pairs, ref_template=_REF + "{model}", by_alias=True)  # type: ignore[arg-type]
    defs: dict[str, Schema] = _tidy(bundle.get("$defs", {}))
    _require_output_keys(defs)
    defs["RequestId"] = dict(_REQUEST_ID)
    return defs


def _variant(method: str, params: type[WireModel], *, with_id: bool) -> Schema:
    props: Schema = {
        "method": {"enum": [method], "type": "string"},
        "params": {"$ref": _REF + params.__name__},
    }
    required = ["method", "params"]
    if with_id:
        props["id"] = {"$ref": _REF + "RequestId"}
        required.insert(0, "id")
    else:
        props["emittedAtMs"] = dict(_EMITTED_AT)
    return {"properties": props, "required": required, "type": "object"}


def message_unions() -> dict[str, Schema]:
    """The three method unions (`ClientRequest`, `ServerNotification`, `ServerRequest`), refs unresolved."""
    notification_variants = [_variant(k, v.params, with_id=False) for k, v in SERVER_NOTIFICATIONS.items()]
    return {
        "ClientRequest": {
            "oneOf": [_variant(k, v.params, with_id=True) for k, v in CLIENT_METHODS.items()],
        },
        "ServerNotification": {
            "oneOf": notification_variants,
            "properties": {"emittedAtMs": dict(_EMITTED_AT)},
        },
        "ServerRequest": {
            "oneOf": [_variant(k, v.params, with_id=True) for k, v in SERVER_REQUESTS.items()],
        },
    }


def schema_documents() -> dict[str, Schema]:
    """File name → JSON document, exactly what `export_json_schema` writes."""
    defs = definitions()
    unions = message_unions()
    docs: dict[str, Schema] = {
        f"{name}.json": {"$schema": DRAFT_07, "title": name, **body, "definitions": defs}
        for name, body in unions.items()
    }
    docs[BUNDLE_NAME] = {
        "$schema": DRAFT_07,
        "title": "TetherAppServerProtocolV2",
        "type": "object",
        "definitions": {**defs, **unions},
    }
    return docs


def render(doc: Schema) -> str:
    """Deterministic JSON text of one schema document."""
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def export_json_schema(out_dir: Path) -> list[Path]:
    """Write the JSON Schema files into `out_dir` (created if missing).

    Args:
        out_dir: Destination directory.

    Returns:
        The written paths, sorted.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, doc in sorted(schema_documents().items()):
        path = out_dir / name
        path.write_text(render(doc), encoding="utf-8")
        written.append(path)
    return written
