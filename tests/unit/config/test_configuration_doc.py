"""docs/configuration.md is generated from the config model: every key, documented, and current."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.config import Config, load_config
from tether_server.config.builtins import PASSTHROUGH_KEYS
from tether_server.config.reference import NOTES, documented_keys, render_markdown
from tether_server.errors import ConfigError

DOC = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"
REGENERATE = "regenerate with: python -m tether_server.config.reference > docs/configuration.md"


def test_the_configuration_page_matches_the_model() -> None:
    assert DOC.read_text() == render_markdown(), REGENERATE


def test_every_key_has_a_description_and_every_description_a_key() -> None:
    keys = documented_keys()
    undocumented = [k for k in keys if k not in NOTES and k not in PASSTHROUGH_KEYS]
    assert not undocumented, f"add these keys to NOTES in tether_server/config/reference.py: {undocumented}"
    assert set(NOTES) <= set(keys), f"NOTES names keys the model no longer has: {set(NOTES) - set(keys)}"
    assert set(Config.model_fields) <= set(keys)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("tether.metrics", "true"),
        ("otel.trace_exporter", '{otlp-http={endpoint="http://127.0.0.1:4318/v1/traces"}}'),
        ("otel.exporter", '"otlp-http"'),
        ("otel.environment", '"prod"'),
    ],
)
def test_the_keys_this_page_adds_are_accepted_by_the_loader(tmp_path: Path, key: str, value: str) -> None:
    loaded = load_config(tmp_path, [f"{key}={value}"], strict=True)
    assert not loaded.warnings


def test_an_unknown_otel_exporter_is_refused_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, ['otel.trace_exporter="zipkin"'])
    assert "otel.trace_exporter" in caught.value.message
