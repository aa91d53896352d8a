"""A config.toml holding every key Codex 0.169.0 knows loads in Tether with no warning.

The keys are `server/tether_server/config/codex_keys.json`, generated from the real binary by
`python -m conformance.config_keys`. Keys Tether models get a value Tether accepts (its default, or
the built-in `openai` provider's for provider keys); the others, which Tether accepts and ignores,
get whatever value: Tether does not look at them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tether_server.config import load_config
from tether_server.config.codex_keys import codex_features, codex_key_kinds, codex_keys
from tether_server.config.model import Config
from tether_server.config.overrides import set_dotted

# Keys Tether models whose default is "unset": a value of the kind Tether takes.
SAMPLES: dict[str, Any] = {
    "profile": "fast",
    "oss_provider": "ollama",
    "openai_base_url": "http://127.0.0.1:1/v1",
    "compact_prompt": "Summarize.",
    "service_tier": "flex",
    "model_reasoning_summary": "auto",
    "model_auto_compact_token_limit": 1000,
    "model_instructions_file": "/dev/null",
    "model_verbosity": "low",
    "instructions": "Be brief.",
    "cli_auth_credentials_store": "file",
    "tool_output_token_limit": 1000,
    "developer_instructions": "Be kind.",
    "web_search": "disabled",
    "personality": "none",
    "model_context_window": 100000,
    "model_reasoning_effort": "low",
}


def _lookup(table: Any, path: list[str]) -> Any:
    for name in path:
        if not isinstance(table, dict) or name not in table:
            return None
        table = table[name]
    return table


def _every_codex_key() -> dict[str, Any]:
    defaults = Config.model_validate({"otel": {}}).model_dump(mode="json", exclude_none=True)
    kinds = codex_key_kinds()
    table: dict[str, Any] = {}
    for key in sorted(codex_keys(), key=lambda k: k.count(".")):
        path = key.replace("<id>", "sample").split(".")
        if _lookup(table, path) is not None:
            continue
        provider = (
            ["model_providers", "openai", *path[2:]] if path[:2] == ["model_providers", "sample"] else None
        )
        value = SAMPLES.get(key, _lookup(defaults, provider or path))
        if value is None:
            value = {} if kinds[key] == "table" else 1
        set_dotted(table, path, value)
    table["profiles"] = {"fast": {"model": "gpt-5.5"}}
    table["features"] = dict.fromkeys(codex_features(), True)
    return table


def _toml(table: dict[str, Any], prefix: str = "") -> str:
    lines = []
    for key, value in table.items():
        path = f"{prefix}{json.dumps(key)}"
        if isinstance(value, dict) and value:
            lines.append(_toml(value, path + "."))
        else:
            lines.append(f"{path} = {_value(value)}\n")
    return "".join(lines)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return json.dumps(value)


def test_the_generated_list_has_codexs_keys_and_feature_flags() -> None:
    keys = codex_keys()
    assert {"feedback", "analytics", "check_for_update_on_startup", "features", "model"} <= keys
    assert "model_providers.<id>.wire_api" in keys
    assert "goals" in codex_features()


def test_a_config_with_every_codex_key_loads_without_a_warning(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(_toml(_every_codex_key()))
    loaded = load_config(tmp_path, strict=True)
    assert loaded.warnings == []


def test_codex_keys_set_by_flags_are_known_and_a_typo_still_warns(tmp_path: Path) -> None:
    flags = [
        "feedback.enabled=false",
        "analytics.enabled=false",
        "check_for_update_on_startup=false",
        "features.goals=true",
        "otel.log_sse_deltas=true",
        "model_providers.openai.websocket_connect_timeout_ms=100",
        "modle=1",
    ]
    loaded = load_config(tmp_path, flags)
    assert loaded.warnings == ["unknown config key `modle` ignored"]
