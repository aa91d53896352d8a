"""`model_provider = "oss"` (what `--oss` sets): the local server `oss_provider` names, as Codex had it.

Codex's `--oss` picked a local open-weights server, Ollama or LM Studio, from `--local-provider` or
the `oss_provider` key, and a gpt-oss model when none was named. Both servers speak Chat Completions
at the built-in providers' addresses (`ollama`: http://localhost:11434/v1, `lmstudio`:
http://localhost:1234/v1).
"""

from __future__ import annotations

from typing import Any

from tether_server.errors import ConfigError

OSS_PROVIDER_ID = "oss"
OSS_PROVIDERS = ("ollama", "lmstudio")
DEFAULT_OSS_MODELS = {"ollama": "gpt-oss:20b", "lmstudio": "openai/gpt-oss-20b"}
"""The model `--oss` runs when none is named: Codex's defaults, in each server's naming."""


def resolve_oss(table: dict[str, Any]) -> dict[str, Any]:
    """`table` with `model_provider = "oss"` replaced by the `oss_provider` it stands for.

    Raises:
        ConfigError: `oss` is asked for and `oss_provider` is unset or names another server.
    """
    if table.get("model_provider") != OSS_PROVIDER_ID:
        return table
    chosen = table.get("oss_provider")
    if chosen is None:
        raise ConfigError(
            "no local model server chosen for --oss: pass --local-provider ollama|lmstudio, or set "
            'oss_provider = "ollama" (or "lmstudio") in config.toml',
            key="oss_provider",
        )
    if chosen not in OSS_PROVIDERS:
        raise ConfigError(
            f"config key `oss_provider`: expected ollama or lmstudio, got {chosen!r}", key="oss_provider"
        )
    resolved = {**table, "model_provider": chosen}
    resolved.setdefault("model", DEFAULT_OSS_MODELS[chosen])
    return resolved
