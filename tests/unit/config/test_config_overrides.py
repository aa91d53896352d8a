"""`-c key=value` overrides and per-thread `config` overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.config import Config, load_config, with_overrides
from tether_server.errors import ConfigError


def test_override_values_are_parsed_as_toml(tmp_path: Path) -> None:
    config = load_config(
        tmp_path,
        [
            'model="o3"',
            "sandbox_workspace_write.network_access=true",
            "project_doc_max_bytes=1024",
            'project_doc_fallback_filenames=["CLAUDE.md", "README.md"]',
        ],
    ).config

    assert config.model == "o3"
    assert config.sandbox_workspace_write.network_access is True
    assert config.project_doc_max_bytes == 1024
    assert config.project_doc_fallback_filenames == ("CLAUDE.md", "README.md")


def test_an_override_that_is_not_toml_is_taken_as_a_plain_string(tmp_path: Path) -> None:
    config = load_config(tmp_path, ["model=o3-mini", "developer_instructions=be brief, please"]).config

    assert config.model == "o3-mini"
    assert config.developer_instructions == "be brief, please"


def test_an_override_can_define_a_whole_new_provider(tmp_path: Path) -> None:
    loaded = load_config(
        tmp_path,
        ['model_providers.mock.base_url="http://127.0.0.1:9/v1"', "model_provider=mock"],
    )

    provider = loaded.config.provider
    assert provider.base_url == "http://127.0.0.1:9/v1"
    assert provider.name == "mock"
    assert provider.wire_api == "responses"
    assert loaded.origins["model_providers.mock.base_url"] == "cli"


def test_an_override_key_may_use_toml_quoting_for_dotted_segments(tmp_path: Path) -> None:
    config = load_config(tmp_path, ['shell_environment_policy.set."MY.VAR"="1"']).config

    assert config.shell_environment_policy.set == {"MY.VAR": "1"}


def test_an_override_without_an_equals_sign_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="expected key=value"):
        load_config(tmp_path, ["model"])


def test_a_bad_override_value_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"config key `sandbox_workspace_write.network_access`"):
        load_config(tmp_path, ["sandbox_workspace_write.network_access=maybe"])


def test_thread_overrides_apply_dotted_json_values_without_changing_the_original() -> None:
    base = Config()

    updated = with_overrides(
        base,
        {"model": "o3", "sandbox_workspace_write.network_access": True, "approval_policy": "never"},
    )

    assert (updated.model, updated.approval_policy) == ("o3", "never")
    assert updated.sandbox_workspace_write.network_access is True
    assert base.model == "gpt-5.5"


def test_thread_overrides_still_accept_untrusted_as_the_wire_does() -> None:
    assert with_overrides(Config(), {"approval_policy": "untrusted"}).approval_policy == "untrusted"


def test_a_null_thread_override_restores_the_default() -> None:
    base = with_overrides(Config(), {"model_verbosity": "low", "model": "o3"})

    updated = with_overrides(base, {"model_verbosity": None, "model": None})

    assert (updated.model_verbosity, updated.model) == (None, "gpt-5.5")


def test_a_bad_thread_override_raises_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as caught:
        with_overrides(Config(), {"sandbox_mode": "bogus"})

    assert caught.value.key == "sandbox_mode"
    assert "expected one of read-only, workspace-write, danger-full-access" in caught.value.message


def test_a_thread_override_naming_an_unknown_provider_is_rejected() -> None:
    with pytest.raises(ConfigError, match="unknown model provider `nowhere`"):
        with_overrides(Config(), {"model_provider": "nowhere"})


def test_a_thread_override_can_switch_to_another_profile(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        '[profiles.fast]\nmodel = "gpt-5.5-mini"\nmodel_reasoning_effort = "low"\n', encoding="utf-8"
    )
    base = load_config(tmp_path).config

    updated = with_overrides(base, {"profile": "fast", "model_reasoning_effort": "medium"})

    assert (updated.model, updated.model_reasoning_effort) == ("gpt-5.5-mini", "medium")
    with pytest.raises(ConfigError, match="profile `slow` not found"):
        with_overrides(base, {"profile": "slow"})


def test_a_thread_override_of_openai_base_url_repoints_the_openai_provider() -> None:
    updated = with_overrides(Config(), {"openai_base_url": "http://127.0.0.1:5/v1"})

    assert updated.model_providers["openai"].base_url == "http://127.0.0.1:5/v1"
