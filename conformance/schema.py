"""Validate server messages against the reference JSON Schema of the protocol.

The reference directory holds the method unions (`ServerNotification.json`, `ServerRequest.json`,
`ClientRequest.json`), the envelope schemas and `codex_app_server_protocol.v2.schemas.json` with every
type. A response is checked against `<Params type minus "Params">Response` of its request's method.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Any

import jsonschema


class ReferenceSchema:
    """The reference schema directory, with validators for each kind of server message.

    Args:
        root: the directory holding the reference schema files.
    """

    def __init__(self, root: Path) -> None:
        if not (root / "ServerNotification.json").is_file():
            raise FileNotFoundError(f"no reference schema in {root}")
        self.root = root

    def _load(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.root / name).read_text())
        return data

    @cached_property
    def _definitions(self) -> dict[str, Any]:
        defs: dict[str, Any] = self._load("codex_app_server_protocol.v2.schemas.json")["definitions"]
        return defs

    @cached_property
    def _notifications(self) -> dict[str, Any]:
        return self._branches("ServerNotification.json")

    @cached_property
    def _server_requests(self) -> dict[str, Any]:
        return self._branches("ServerRequest.json")

    @cached_property
    def _response_types(self) -> dict[str, str]:
        names: dict[str, str] = {}
        for method, branch in self._branches("ClientRequest.json").items():
            ref = branch["properties"].get("params", {}).get("$ref", "")
            params = ref.rsplit("/", 1)[-1]
            if params.endswith("Params"):
                names[method] = params[: -len("Params")] + "Response"
        return names

    def _branches(self, name: str) -> dict[str, Any]:
        union = self._load(name)
        out: dict[str, Any] = {}
        for branch in union["oneOf"]:
            for method in branch["properties"]["method"].get("enum", []):
                out[method] = {**branch, "definitions": union["definitions"]}
        return out

    @cached_property
    def _error_envelope(self) -> dict[str, Any]:
        return self._load("JSONRPCError.json")

    def known_notification(self, method: str) -> bool:
        """Whether `method` is a server notification of the reference protocol."""
        return method in self._notifications

    def notification_errors(self, message: dict[str, Any]) -> list[str]:
        """Schema violations of a server notification (envelope without `emittedAtMs`)."""
        method = str(message.get("method"))
        branch = self._notifications.get(method)
        if branch is None:
            return [f"{method}: not a notification of the reference protocol"]
        envelope = {k: v for k, v in message.items() if k in ("method", "params")}
        return _errors(branch, envelope, method)

    def server_request_errors(self, message: dict[str, Any]) -> list[str]:
        """Schema violations of a server-to-client request."""
        method = str(message.get("method"))
        branch = self._server_requests.get(method)
        if branch is None:
            return [f"{method}: not a server request of the reference protocol"]
        envelope = {k: v for k, v in message.items() if k in ("id", "method", "params")}
        return _errors(branch, envelope, method)

    def response_errors(self, method: str, result: Any) -> list[str]:
        """Schema violations of the `result` answering a request of `method`."""
        if method == "initialize":
            return _errors(self._load("v1/InitializeResponse.json"), result, "initialize result")
        name = self._response_types.get(method)
        if name is None or name not in self._definitions:
            return []
        schema = {"$ref": f"#/definitions/{name}", "definitions": self._definitions}
        return _errors(schema, result, f"{method} result")

    def error_errors(self, message: dict[str, Any]) -> list[str]:
        """Schema violations of an error response envelope."""
        return _errors(self._error_envelope, message, "error response")


def _errors(schema: dict[str, Any], instance: Any, label: str) -> list[str]:
    validator = jsonschema.Draft7Validator(schema)
    return [
        f"{label}: {'/'.join(map(str, e.absolute_path))}: {e.message}"[:400]
        for e in validator.iter_errors(instance)
    ][:3]
