"""The config.toml keys Codex 0.169.0 knows, so a Codex config loads without "unknown key" warnings.

`codex_keys.json` beside this module is generated from the real binary by
`python -m conformance.config_keys` (see that module for how): its top-level keys, the keys of the
tables Tether reads key by key (`<id>` standing for any name) and the feature flag names. A key Codex
knows and Tether does not model is accepted and ignored; only keys Codex does not know either warn.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def _data() -> dict[str, object]:
    text = resources.files("tether_server.config").joinpath("codex_keys.json").read_text(encoding="utf-8")
    data: dict[str, object] = json.loads(text)
    return data


def codex_key_kinds() -> dict[str, str]:
    """Dotted key → how Codex took it: "table", "value", "refused" (any value) or "unsettled"."""
    keys = _data()["keys"]
    assert isinstance(keys, dict)
    return {str(k): str(v) for k, v in keys.items()}


@cache
def codex_keys() -> frozenset[str]:
    """Dotted keys Codex knows (`model_providers.<id>.name` form for entries of a map)."""
    return frozenset(codex_key_kinds())


def codex_features() -> tuple[str, ...]:
    """The feature flag names `codex features list` prints."""
    names = _data()["features"]
    assert isinstance(names, list)
    return tuple(str(n) for n in names)


def known_to_codex(path: str) -> bool:
    """Whether a dotted key (entry names as they are) is one Codex knows."""
    keys = codex_keys()
    if path in keys:
        return True
    parts = path.split(".")
    # `model_providers.mock.websocket_connect_timeout_ms` is `model_providers.<id>.…`.
    return any(".".join([*parts[:i], "<id>", *parts[i + 1 :]]) in keys for i in range(1, len(parts)))
