"""Built-in and user model providers, and where their API keys come from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.config import ModelProviderInfo, load_config, resolve_api_key
from tether_server.errors import ConfigError


def test_openai_ollama_and_lmstudio_are_built_in(tmp_path: Path) -> None:
    providers = load_config(tmp_path).config.model_providers

    assert providers["openai"].base_url == "https://api.openai.com/v1"
    assert providers["openai"].env_key == "OPENAI_API_KEY"
    assert providers["ollama"].base_url == "http://localhost:11434/v1"
    assert providers["ollama"].env_key is None
    assert providers["lmstudio"].base_url == "http://localhost:1234/v1"


def test_provider_retry_and_timeout_defaults(tmp_path: Path) -> None:
    provider = load_config(tmp_path).config.provider

    assert (provider.request_max_retries, provider.stream_max_retries) == (4, 5)
    assert provider.stream_idle_timeout_ms == 300_000
    assert provider.wire_api == "responses"


def test_a_user_provider_is_added_alongside_the_built_ins(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        'model_provider = "corp"\n'
        "[model_providers.corp]\n"
        'name = "Corp gateway"\nbase_url = "https://llm.corp/v1"\nenv_key = "CORP_KEY"\n'
        'query_params = { "api-version" = "2025-01-01" }\n'
        'http_headers = { "X-Team" = "infra" }\nenv_http_headers = { "X-Org" = "CORP_ORG" }\n'
        "request_max_retries = 0\nstream_idle_timeout_ms = 1000\n",
        encoding="utf-8",
    )

    config = load_config(tmp_path).config

    assert set(config.model_providers) == {"openai", "ollama", "lmstudio", "corp"}
    assert config.provider_name == "Corp gateway"
    assert config.provider.query_params == {"api-version": "2025-01-01"}
    assert config.provider.env_http_headers == {"X-Org": "CORP_ORG"}
    assert config.provider.request_max_retries == 0


def test_a_user_table_for_a_built_in_provider_changes_only_the_keys_it_sets(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        'model_provider = "ollama"\n[model_providers.ollama]\nbase_url = "http://gpu-box:11434/v1"\n',
        encoding="utf-8",
    )

    provider = load_config(tmp_path).config.provider

    assert provider.base_url == "http://gpu-box:11434/v1"
    assert provider.name == "Ollama"


def test_openai_base_url_repoints_the_built_in_openai_provider(tmp_path: Path) -> None:
    config = load_config(tmp_path, ['openai_base_url="http://127.0.0.1:7/v1"']).config

    assert config.provider.base_url == "http://127.0.0.1:7/v1"


def test_the_api_key_is_read_from_the_providers_env_key() -> None:
    provider = ModelProviderInfo(name="OpenAI", env_key="OPENAI_API_KEY")

    assert resolve_api_key(provider, {"OPENAI_API_KEY": "sk-test"}) == "sk-test"


def test_a_provider_without_env_key_needs_no_api_key() -> None:
    assert resolve_api_key(ModelProviderInfo(name="Ollama"), {}) is None


def test_a_missing_api_key_names_the_variable_and_the_provider() -> None:
    provider = ModelProviderInfo(name="openai", env_key="OPENAI_API_KEY", env_key_instructions="see docs")

    with pytest.raises(ConfigError) as caught:
        resolve_api_key(provider, {"OPENAI_API_KEY": "  "})

    assert caught.value.message == (
        "missing environment variable OPENAI_API_KEY for model provider openai; see docs, "
        "or store a key with `printenv OPENAI_API_KEY | tether login --with-api-key`"
    )


def test_a_stored_key_stands_in_for_an_unset_openai_api_key() -> None:
    provider = ModelProviderInfo(name="OpenAI", env_key="OPENAI_API_KEY")

    assert resolve_api_key(provider, {}, "sk-stored") == "sk-stored"
    assert resolve_api_key(provider, {"OPENAI_API_KEY": "sk-env"}, "sk-stored") == "sk-env"


def test_a_stored_key_serves_providers_that_require_openai_auth_only() -> None:
    openai_auth = ModelProviderInfo(name="gw", env_key="GW_KEY", requires_openai_auth=True)
    other = ModelProviderInfo(name="other", env_key="OTHER_KEY")

    assert resolve_api_key(openai_auth, {}, "sk-stored") == "sk-stored"
    with pytest.raises(ConfigError) as caught:
        resolve_api_key(other, {}, "sk-stored")
    assert "tether login" not in caught.value.message
    assert resolve_api_key(ModelProviderInfo(name="Ollama"), {}, "sk-stored") is None


def test_an_explicit_bearer_token_wins_over_the_environment() -> None:
    provider = ModelProviderInfo(name="x", env_key="X_KEY", experimental_bearer_token="tok")

    assert resolve_api_key(provider, {}) == "tok"
