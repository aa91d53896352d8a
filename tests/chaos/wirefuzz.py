"""Hypothesis strategies for JSON-RPC frames, drawn from the method table's params models.

Params come from each model's JSON schema: mostly valid values, and at every level a chance of a
boundary value, a wrong type, a huge string or deep nesting. Frames around them are odd too: ids
of every JSON type, missing or unknown methods, params that are not objects, bytes that are not
JSON. Every request id is unique (a counter), so answers can be counted per id.

Values that would act outside the test are pinned (`pinned`): `command/exec` and
`thread/shellCommand` only ever run `echo`, and the paths of `fs/*`, `config/*` and `feedback/*`
methods (which write and remove files) all lie in a scratch directory, and a marketplace is only
ever a local folder there (never a clone from the network).
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tether_protocol.methods import CLIENT_METHODS

Json = Any
_ids = itertools.count(1)
# Lone surrogates are not Unicode: a frame holding one escaped is a parse error (-32700, id null),
# as in Codex; they get frames of their own (`odd_frame`), not a place in requests.
_CHARS = st.characters(blacklist_categories=["Cs"])


def text(*, min_size: int = 0, max_size: int) -> st.SearchStrategy[str]:
    return st.text(_CHARS, min_size=min_size, max_size=max_size)


JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    text(max_size=20),
)
ANY_JSON: st.SearchStrategy[Json] = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
ODD_STRINGS = st.sampled_from(
    ["", " ", "\x00", "a\x00b", "../../etc/passwd", "/", "\u202e", "\ud7ff", "🙂" * 50, "%s%n", "\\", '"']
)
BOUNDARY_INTS = st.sampled_from([-1, 0, 1, 65535, 65536, 2**31, 2**53 + 1, 2**63, -(2**63) - 1, 10**30])


def huge_string() -> st.SearchStrategy[str]:
    return st.integers(10_000, 300_000).map(lambda n: "x" * n)


def deep_nesting() -> st.SearchStrategy[Json]:
    return st.integers(50, 5_000).map(lambda n: json.loads("[" * n + "]" * n) if n < 900 else {"d": n})


def mutation() -> st.SearchStrategy[Json]:
    return st.one_of(ANY_JSON, ODD_STRINGS, BOUNDARY_INTS, huge_string(), deep_nesting())


class Frame:
    """One frame to send; `request_id` is set when the frame is a request that must be answered.

    Not a dataclass: Hypothesis prints dataclasses field by field, and a frame may be 300 kB.
    """

    def __init__(self, data: bytes, request_id: Json = None, answerable: bool = False) -> None:
        self.data, self.request_id, self.answerable = data, request_id, answerable

    def __repr__(self) -> str:
        shown = self.data if len(self.data) < 400 else self.data[:300] + b"..." + self.data[-60:]
        return f"Frame({shown!r}, id={str(self.request_id)[:40]!r}, answerable={self.answerable})"


class SchemaValues:
    """Values for one JSON schema (with its $defs), valid with some mutation at every level."""

    def __init__(self, schema: dict[str, Any], known_threads: list[str]) -> None:
        self.schema = schema
        self.defs = schema.get("$defs", {})
        self.threads = known_threads

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self.defs[schema["$ref"].rsplit("/", 1)[1]]
        return schema

    def _field(self, schema: dict[str, Any], name: str, depth: int) -> st.SearchStrategy[Json]:
        # Mostly well-formed, so that handlers get past validation and into their own code.
        valid = self._valid(self.resolve(schema), name, depth)
        return st.one_of(valid, valid, valid, mutation())

    def _valid(self, schema: dict[str, Any], name: str, depth: int) -> st.SearchStrategy[Json]:
        if name == "threadId" and self.threads:
            return st.sampled_from(self.threads) | text(max_size=40)
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return st.one_of([self._valid(self.resolve(s), name, depth) for s in schema[key]])
        kind = schema.get("type")
        if isinstance(kind, list):
            return st.one_of([self._valid({**schema, "type": k}, name, depth) for k in kind])
        if depth > 6:
            return JSON_SCALARS
        if kind == "object" or "properties" in schema:
            return self._object(schema, depth)
        if kind == "array":
            item = self.resolve(schema.get("items", {}))
            return st.lists(self._field(item, name, depth + 1), max_size=4)
        return _scalar(schema, kind)

    def params(self) -> st.SearchStrategy[Json]:
        return self._object(self.resolve(self.schema), 0)

    def _object(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Json]:
        props: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        fields = {key: self._field(sub, key, depth + 1) for key, sub in props.items()}

        @st.composite
        def build(draw: st.DrawFn) -> dict[str, Json]:
            out: dict[str, Json] = {}
            for key, values in fields.items():
                if key in required or draw(st.integers(0, 3)) == 0:
                    if draw(st.integers(0, 30)) == 0:
                        continue  # a required field left out now and then
                    out[key] = draw(values)
            if draw(st.integers(0, 10)) == 0:
                out[draw(text(min_size=1, max_size=10))] = draw(ANY_JSON)
            return out

        return build()


def _scalar(schema: dict[str, Any], kind: str | None) -> st.SearchStrategy[Json]:
    if kind == "string":
        return text(max_size=int(schema.get("maxLength", 60)))
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum")) | BOUNDARY_INTS
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False) | BOUNDARY_INTS
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return ANY_JSON


_PATH_KEYS = {"path", "sourcePath", "destinationPath", "filePath", "savePath"}


def _pin_import_items(method: str, params: dict[str, Any], scratch: str) -> None:
    # A home-scoped item (no cwd) would import the machine's ~/.claude into the real HOME.
    items = params.get("migrationItems") if method == "externalAgentConfig/import" else None
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            item["cwd"] = scratch


def pinned(method: str, params: Json, scratch: str) -> Json:
    """Keep the fuzzer harmless whatever was drawn: only `echo` runs, files change only in `scratch`."""
    if not isinstance(params, dict):
        return params
    if method.startswith("fuzzyFileSearch") and "roots" in params:
        params["roots"] = [scratch]  # a search from / would walk the whole machine
    if method.startswith(("fs/", "config/", "feedback/")):
        for key in _PATH_KEYS & params.keys():
            if isinstance(params[key], str):
                name = re.sub(r"[^A-Za-z0-9._-]", "_", params[key])[:60].lstrip(".")
                params[key] = f"{scratch}/{name or 'x'}"
    if method == "skills/extraRoots/set" and isinstance(params.get("extraRoots"), list):
        params["extraRoots"] = [scratch]  # an extra root of / would watch every folder under it
    if method == "marketplace/add" and isinstance(params.get("source"), str):
        # `owner/repo` or a URL would clone from the network: only local folders in the scratch.
        params["source"] = f"{scratch}/" + re.sub(r"[^A-Za-z0-9._-]", "_", params["source"])[:60]
    if method in ("plugin/install", "plugin/read") and isinstance(params.get("marketplacePath"), str):
        params["marketplacePath"] = f"{scratch}/.agents/plugins/marketplace.json"
    _pin_import_items(method, params, scratch)
    if method in ("command/exec", "process/spawn") and isinstance(params.get("command"), list):
        params["command"] = ["echo", *(str(a)[:200] for a in params["command"])]
    if method == "thread/shellCommand" and isinstance(params.get("command"), str):
        params["command"] = "echo " + shlex.quote(params["command"][:200])
    if method == "command/exec" and isinstance(params.get("command"), str):
        params["command"] = "echo"
    return params


def odd_id(n: int) -> st.SearchStrategy[Json]:
    """An id unique to this frame, in one of the shapes JSON-RPC allows."""
    return st.sampled_from([n + 10**9, f"fz-{n}", -n, 2**62 + n, "ü" * 3 + str(n), "x" * 3000 + str(n)])


_cache: dict[tuple[str, int], st.SearchStrategy[Json]] = {}


def _params(method: str, known_threads: list[str]) -> st.SearchStrategy[Json]:
    key = (method, id(known_threads))
    if key not in _cache:
        values = SchemaValues(CLIENT_METHODS[method].params.model_json_schema(by_alias=True), known_threads)
        not_an_object = mutation().filter(lambda v: not isinstance(v, dict))
        _cache[key] = st.one_of(values.params(), values.params(), values.params(), not_an_object)
    return _cache[key]


@st.composite
def request_frame(draw: st.DrawFn, known_threads: list[str], scratch: str) -> Frame:
    method = draw(st.sampled_from(sorted(CLIENT_METHODS)))
    params = pinned(method, draw(_params(method, known_threads)), scratch)
    rid = draw(odd_id(next(_ids)))
    message: dict[str, Json] = {"id": rid, "method": method}
    if draw(st.integers(0, 8)) or params != {}:
        message["params"] = params
    if draw(st.integers(0, 10)) == 0:
        message["jsonrpc"] = "2.0"
    return Frame(json.dumps(message).encode(), rid, answerable=True)


@st.composite
def odd_frame(draw: st.DrawFn) -> Frame:
    """A frame that is not a well-formed request: each must not break the connection."""
    n = next(_ids)
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return Frame(b"{not json" + str(n).encode())
    if kind == 1:
        return Frame(json.dumps(draw(ANY_JSON)).encode())
    if kind == 2:  # an unknown method is a request all the same
        rid = n + 10**9
        name = draw(text(max_size=30))
        return Frame(json.dumps({"id": rid, "method": name}).encode(), rid, answerable=True)
    if kind == 3:  # a request id of a type JSON-RPC does not allow
        bad_id: Json = draw(st.sampled_from([None, True, [n], {"n": n}, n + 0.5, 2**64 + n]))
        return Frame(json.dumps({"id": bad_id, "method": "thread/loaded/list", "params": {}}).encode())
    if kind == 4:  # an answer to a server request that never was
        return Frame(json.dumps({"id": n + 10**9, "result": draw(ANY_JSON)}).encode())
    if kind == 5:  # a notification of a request method
        return Frame(json.dumps({"method": "thread/loaded/list", "params": draw(ANY_JSON)}).encode())
    if kind == 6:
        depth = draw(st.integers(1_000, 100_000))
        return Frame(b"[" * depth + b"]" * depth)
    if kind == 7 and draw(st.booleans()):
        return Frame(
            json.dumps({"id": n + 10**9, "method": "thread/list", "params": {"cwd": "\ud800"}}).encode()
        )
    if kind == 7:
        return Frame(b"\xff\xfe" + bytes(draw(st.binary(max_size=40))).replace(b"\n", b" "))
    if kind == 8:  # params not an object
        rid = n + 10**9
        params = draw(st.one_of(st.lists(JSON_SCALARS, max_size=3), text(max_size=10), st.integers()))
        body = {"id": rid, "method": "thread/list", "params": params}
        return Frame(json.dumps(body).encode(), rid, answerable=True)
    return Frame(json.dumps({"id": n + 10**9, "method": None}).encode())


def frames(known_threads: list[str], scratch: Path) -> st.SearchStrategy[list[Frame]]:
    """Batches of frames; `known_threads` fills threadId fields, `scratch` is where files may change."""
    requests = request_frame(known_threads, str(scratch))
    return st.lists(st.one_of(requests, odd_frame()), min_size=1, max_size=6)
