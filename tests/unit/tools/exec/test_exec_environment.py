"""The environment spawned commands get under each shell_environment_policy."""

from __future__ import annotations

from tether_server.tools.exec.environment import build_env

DAEMON = {
    "PATH": "/bin",
    "HOME": "/root",
    "OPENAI_API_KEY": "sk-x",
    "GH_TOKEN": "t",
    "MY_SECRET": "s",
    "EDITOR": "vi",
    "LANG": "C.UTF-8",
}


def test_credentials_are_dropped_by_default() -> None:
    env = build_env(DAEMON)
    assert "OPENAI_API_KEY" not in env and "GH_TOKEN" not in env and "MY_SECRET" not in env
    assert env["EDITOR"] == "vi"


def test_default_excludes_can_be_turned_off() -> None:
    assert build_env(DAEMON, ignore_default_excludes=True)["OPENAI_API_KEY"] == "sk-x"


def test_core_inherits_only_the_core_variables_and_none_inherits_nothing() -> None:
    assert set(build_env(DAEMON, inherit="core")) == {"PATH", "HOME", "LANG"}
    assert build_env(DAEMON, inherit="none", set_vars={"A": "1"}) == {"A": "1"}


def test_exclude_set_and_include_only_apply_in_order() -> None:
    env = build_env(DAEMON, exclude=["ed*"], set_vars={"CI": "1"}, include_only=["PATH", "C?"])
    assert env == {"PATH": "/bin", "CI": "1"}


def test_every_credential_pattern_is_dropped_whatever_the_case() -> None:
    names = ["db_password", "X_AUTH_HEADER", "AWS_CREDENTIALS", "Stripe_Secret", "api_key", "npm_token"]
    env = build_env({**dict.fromkeys(names, "v"), "EDITOR": "vi"})
    assert env == {"EDITOR": "vi"}


def test_the_provider_key_is_removed_even_when_defaults_are_off_or_it_is_set() -> None:
    env = build_env(
        DAEMON,
        ignore_default_excludes=True,
        set_vars={"OPENAI_API_KEY": "sk-again"},
        always_removed=["OPENAI_API_KEY"],
    )
    assert "OPENAI_API_KEY" not in env
    assert env["GH_TOKEN"] == "t"
