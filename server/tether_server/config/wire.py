"""The `config/read` projection: the effective config and its origins, secrets withheld."""

from __future__ import annotations

import json
from typing import Any

from tether_server.config.builtins import PASSTHROUGH_KEYS
from tether_server.config.load import LoadedConfig
from tether_server.config.secrets import looks_secret

REDACTED = "<redacted>"

# Tables Tether keeps for itself or only for selection; config/read reports the result instead.
# `otel` exporters carry collector credentials in their headers.
# `skills` is reported as Codex reports it (its `[[skills.config]]` entries).
_NOT_REPORTED = (PASSTHROUGH_KEYS - {"skills"}) | {"profiles", "tether", "otel"}


def config_to_wire(loaded: LoadedConfig) -> dict[str, Any]:
    """The `config` object of a `config/read` response (snake_case, like config.toml).

    Header values, bearer tokens and secret-looking `shell_environment_policy.set` entries are
    replaced by "<redacted>"; unset keys and accepted-but-ignored Codex keys are left out.
    """
    wire = loaded.config.model_dump(mode="json", exclude_none=True, exclude=set(_NOT_REPORTED))
    for provider in wire.get("model_providers", {}).values():
        _redact_provider(provider)
    env_set = wire.get("shell_environment_policy", {}).get("set", {})
    for name in env_set:
        if looks_secret(name):
            env_set[name] = REDACTED
    return wire


def redact_table(table: dict[str, Any]) -> dict[str, Any]:
    """A copy of one layer's raw table with the secrets `config_to_wire` withholds withheld.

    Provider tokens and headers, secret-looking `shell_environment_policy.set` entries, and every
    `otel` exporter header (collector credentials).
    """
    copy: dict[str, Any] = json.loads(json.dumps(table, default=str))
    for provider in (copy.get("model_providers") or {}).values():
        if isinstance(provider, dict):
            _redact_provider(provider)
    env_set = (copy.get("shell_environment_policy") or {}).get("set") or {}
    for name in env_set:
        if looks_secret(name):
            env_set[name] = REDACTED
    _redact_headers(copy.get("otel"))
    return copy


def _redact_headers(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "headers" and isinstance(value, dict):
                node[key] = dict.fromkeys(value, REDACTED)
            else:
                _redact_headers(value)


def origins_to_wire(loaded: LoadedConfig) -> dict[str, Any]:
    """The `origins` object of `config/read`: dotted key → `ConfigLayerMetadata`.

    Keys that still hold their default are left out (no layer set them).
    """
    user_file = str(loaded.path)
    sources: dict[str, dict[str, Any]] = {
        "user": {"name": {"type": "user", "file": user_file}, "version": loaded.versions.get("user", "")},
        "profile": {
            "name": {"type": "user", "file": user_file, "profile": loaded.profile},
            "version": loaded.versions.get("user", ""),
        },
        "cli": {"name": {"type": "sessionFlags"}, "version": loaded.versions.get("cli", "")},
    }
    wire_keys = _reported_leaves(config_to_wire(loaded))
    return {
        key: sources[origin]
        for key, origin in loaded.origins.items()
        if origin in sources and key in wire_keys
    }


def _redact_provider(provider: dict[str, Any]) -> None:
    if "experimental_bearer_token" in provider:
        provider["experimental_bearer_token"] = REDACTED
    headers = provider.get("http_headers") or {}
    for name in headers:
        headers[name] = REDACTED
    params = provider.get("query_params") or {}
    for name in params:
        if looks_secret(name):
            params[name] = REDACTED


def _reported_leaves(table: dict[str, Any], prefix: str = "") -> set[str]:
    leaves: set[str] = set()
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and value:
            leaves |= _reported_leaves(value, path)
        else:
            leaves.add(path)
    return leaves
