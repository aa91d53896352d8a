"""Config problems: unknown keys warn (or fail when strict), bad values name their key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.config import load_config
from tether_server.errors import ConfigError


def write(home: Path, text: str) -> Path:
    path = home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_for(home: Path, text: str, overrides: tuple[str, ...] = ()) -> ConfigError:
    write(home, text)
    with pytest.raises(ConfigError) as caught:
        load_config(home, overrides)
    return caught.value


def test_unknown_keys_anywhere_produce_one_warning_each_with_their_dotted_path(tmp_path: Path) -> None:
    write(
        tmp_path,
        'modle = "typo"\n'
        "[foo]\nbar = 1\n"
        "[sandbox_workspace_write]\nnetwork = true\n"
        '[model_providers.local]\nbase_url = "http://127.0.0.1:8080/v1"\nretries = 2\n'
        '[profiles.p]\nmodel = "m"\nzap = 1\n'
        "[tether]\nnothing_yet = true\n",
    )

    loaded = load_config(tmp_path)

    assert sorted(loaded.warnings) == sorted(
        f"unknown config key `{key}` ignored"
        for key in (
            "modle",
            "foo.bar",
            "sandbox_workspace_write.network",
            "model_providers.local.retries",
            "profiles.p.zap",
            "tether.nothing_yet",
        )
    )
    assert loaded.config.model_providers["local"].base_url == "http://127.0.0.1:8080/v1"


def test_unknown_keys_in_the_selected_profile_warn_once(tmp_path: Path) -> None:
    write(tmp_path, '[profiles.p]\nmodel = "m"\nzap = 1\n')

    assert load_config(tmp_path, profile="p").warnings == ["unknown config key `profiles.p.zap` ignored"]


def test_strict_loading_rejects_unknown_keys(tmp_path: Path) -> None:
    write(tmp_path, "[sandbox_workspace_write]\nnetwork = true\n")

    with pytest.raises(ConfigError, match=r"unknown config key `sandbox_workspace_write.network`"):
        load_config(tmp_path, strict=True)


def test_unknown_override_keys_warn_too(tmp_path: Path) -> None:
    assert load_config(tmp_path, ["no_such_key=1"]).warnings == ["unknown config key `no_such_key` ignored"]


def test_a_bad_enum_value_says_what_was_expected(tmp_path: Path) -> None:
    error = error_for(tmp_path, 'sandbox_mode = "bogus"\n')

    assert error.message == (
        "config key `sandbox_mode`: expected one of read-only, workspace-write, "
        'danger-full-access, got "bogus"'
    )
    assert error.key == "sandbox_mode"


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ('model_context_window = "big"\n', "model_context_window", "expected an integer"),
        ("project_doc_max_bytes = -1\n", "project_doc_max_bytes", "expected a number >= 0"),
        (
            '[sandbox_workspace_write]\nnetwork_access = "yes"\n',
            "sandbox_workspace_write.network_access",
            "boolean",
        ),
        (
            "[sandbox_workspace_write]\nwritable_roots = ['/a', 3]\n",
            "sandbox_workspace_write.writable_roots[1]",
            "string",
        ),
        (
            '[shell_environment_policy]\ninherit = "some"\n',
            "shell_environment_policy.inherit",
            "all, core, none",
        ),
        ('model_reasoning_summary = "long"\n', "model_reasoning_summary", "auto, concise, detailed, none"),
        (
            '[model_providers.x]\nrequest_max_retries = "4"\n',
            "model_providers.x.request_max_retries",
            "integer",
        ),
        ("sandbox_workspace_write = 3\n", "sandbox_workspace_write", "expected a table"),
        ("approval_policy = 5\n", "approval_policy", "on-request, never"),
        (
            "[approval_policy.granular]\nsandbox_approval = true\nmcp_elicitations = true\n",
            "approval_policy.granular.rules",
            "required key is missing",
        ),
    ],
)
def test_a_bad_value_names_the_dotted_key_and_the_expected_type(
    tmp_path: Path, text: str, key: str, expected: str
) -> None:
    error = error_for(tmp_path, text)

    assert error.key == key
    assert error.message.startswith(f"config key `{key}`: ")
    assert expected in error.message
    assert "pydantic" not in error.message
    assert "validation error" not in error.message


def test_approval_policy_untrusted_in_the_file_is_no_longer_supported(tmp_path: Path) -> None:
    error = error_for(tmp_path, 'approval_policy = "untrusted"\n')

    assert error.message == 'approval_policy = "untrusted" is no longer supported; remove this setting'


def test_approval_policy_untrusted_in_a_profile_or_override_is_rejected_too(tmp_path: Path) -> None:
    assert (
        "no longer supported" in error_for(tmp_path, '[profiles.p]\napproval_policy = "untrusted"\n').message
    )
    assert "no longer supported" in error_for(tmp_path, "", ('approval_policy="untrusted"',)).message


def test_the_chat_wire_api_loads_and_an_unknown_wire_api_is_a_clear_error(tmp_path: Path) -> None:
    write(tmp_path, '[model_providers.proxy]\nbase_url = "http://h/v1"\nwire_api = "chat"\n')
    assert load_config(tmp_path).config.model_providers["proxy"].wire_api == "chat"

    error = error_for(tmp_path, '[model_providers.proxy]\nbase_url = "http://h/v1"\nwire_api = "grpc"\n')

    assert error.key == "model_providers.proxy.wire_api"
    assert "grpc" in error.message


def test_a_toml_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, 'model = "o3"\nsandbox_mode = \n')

    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)

    assert str(path) in caught.value.message
    assert "line 2" in caught.value.message


def test_a_model_provider_that_is_not_defined_is_an_error(tmp_path: Path) -> None:
    error = error_for(tmp_path, 'model_provider = "azure"\n')

    assert error.key == "model_provider"
    assert "unknown model provider `azure`" in error.message
    assert "lmstudio, ollama, openai" in error.message


def test_a_model_providers_key_that_is_not_a_table_is_an_error(tmp_path: Path) -> None:
    error = error_for(tmp_path, "model_providers = 3\n")

    assert error.message == "config key `model_providers`: expected a table, got 3"


def test_an_unreadable_config_file_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_bytes(b'model = "\xff"\n')

    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path)
