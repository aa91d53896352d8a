"""Loading config.toml: defaults, layering and where each value came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.config import (
    Config,
    GranularApprovalPolicy,
    load_config,
    tether_home,
)
from tether_server.errors import ConfigError


def write(home: Path, text: str) -> Path:
    path = home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_tether_home_comes_from_the_environment_or_defaults_to_dot_tether(tmp_path: Path) -> None:
    assert tether_home({"TETHER_HOME": str(tmp_path)}) == tmp_path
    assert tether_home({}) == Path.home() / ".tether"
    codex = tmp_path / "codex"
    assert tether_home({"CODEX_HOME": str(codex)}) == codex  # tools written for Codex set it
    assert tether_home({"CODEX_HOME": str(codex), "TETHER_HOME": str(tmp_path)}) == tmp_path


def test_a_missing_config_file_gives_the_documented_defaults(tmp_path: Path) -> None:
    loaded = load_config(tmp_path)

    config = loaded.config
    assert loaded.path == tmp_path / "config.toml"
    assert loaded.warnings == []
    assert (config.model, config.model_provider) == ("gpt-5.5", "openai")
    assert config.approval_policy == "on-request"
    assert config.approvals_reviewer == "user"
    assert config.sandbox_mode == "read-only"
    assert config.sandbox_workspace_write.network_access is False
    assert config.shell_environment_policy.inherit == "all"
    assert config.shell_environment_policy.ignore_default_excludes is False
    assert config.project_doc_max_bytes == 32768
    assert config.thread_unload_delay_secs == 60
    assert loaded.origins["model"] == "default"


def test_config_file_values_replace_defaults_and_are_marked_user(tmp_path: Path) -> None:
    write(
        tmp_path,
        'model = "o3"\nsandbox_mode = "workspace-write"\n'
        "[sandbox_workspace_write]\nwritable_roots = ['/srv/data']\nnetwork_access = true\n",
    )

    loaded = load_config(tmp_path)

    assert loaded.config.model == "o3"
    assert loaded.config.sandbox_mode == "workspace-write"
    assert loaded.config.sandbox_workspace_write.writable_roots == ("/srv/data",)
    assert loaded.config.sandbox_workspace_write.exclude_slash_tmp is False
    assert loaded.origins["sandbox_workspace_write.network_access"] == "user"
    assert loaded.origins["sandbox_workspace_write.exclude_slash_tmp"] == "default"


def test_precedence_is_defaults_then_file_then_profile_then_overrides(tmp_path: Path) -> None:
    write(
        tmp_path,
        'model = "file-model"\nmodel_verbosity = "low"\nmodel_reasoning_effort = "low"\n'
        'profile = "deep"\n'
        '[profiles.deep]\nmodel = "profile-model"\nmodel_reasoning_effort = "high"\n',
    )

    loaded = load_config(tmp_path, ['model="cli-model"'])

    config = loaded.config
    assert (config.model, config.model_reasoning_effort, config.model_verbosity) == (
        "cli-model",
        "high",
        "low",
    )
    assert config.profile == "deep"
    assert loaded.origins["model"] == "cli"
    assert loaded.origins["model_reasoning_effort"] == "profile"
    assert loaded.origins["model_verbosity"] == "user"
    assert loaded.origins["sandbox_mode"] == "default"


def test_a_profile_chosen_by_argument_wins_over_the_file_profile_key(tmp_path: Path) -> None:
    write(tmp_path, 'profile = "a"\n[profiles.a]\nmodel = "A"\n[profiles.b]\nmodel = "B"\n')

    assert load_config(tmp_path).config.model == "A"
    assert load_config(tmp_path, profile="b").config.model == "B"
    assert load_config(tmp_path, ["profile=b"]).config.model == "B"


def test_no_profile_is_applied_unless_one_is_selected(tmp_path: Path) -> None:
    write(tmp_path, '[profiles.fast]\nmodel = "gpt-5.5-mini"\n')

    assert load_config(tmp_path).config.model == "gpt-5.5"


def test_selecting_a_profile_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, '[profiles.fast]\nmodel = "m"\n')

    with pytest.raises(ConfigError, match="profile `slow` not found"):
        load_config(tmp_path, profile="slow")


def test_a_profile_table_merges_into_nested_base_tables(tmp_path: Path) -> None:
    write(
        tmp_path,
        "[sandbox_workspace_write]\nwritable_roots = ['/a']\n"
        "[profiles.net]\nsandbox_workspace_write = { network_access = true }\n",
    )

    config = load_config(tmp_path, profile="net").config

    assert config.sandbox_workspace_write.writable_roots == ("/a",)
    assert config.sandbox_workspace_write.network_access is True


def test_granular_approval_policy_table_loads(tmp_path: Path) -> None:
    write(
        tmp_path,
        "[approval_policy.granular]\nsandbox_approval = true\nrules = false\nmcp_elicitations = true\n",
    )

    policy = load_config(tmp_path).config.approval_policy

    assert isinstance(policy, GranularApprovalPolicy)
    assert policy.granular.rules is False
    assert policy.granular.skill_approval is False


def test_the_config_is_frozen(tmp_path: Path) -> None:
    config = load_config(tmp_path).config

    with pytest.raises(ValueError, match="frozen"):
        config.model = "other"  # type: ignore[misc]
    assert isinstance(config, Config)
