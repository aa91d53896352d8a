"""`tether tui`'s arguments: overrides, tokens and the checks made before any connection."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.cli import main as tether_main
from tether_tui.cli import UsageError, app_server_command, main, parse_override, read_token


def test_override_values_are_read_as_toml_and_bare_words_stay_strings() -> None:
    assert parse_override("model=gpt-x") == ("model", "gpt-x")
    assert parse_override('sandbox_mode = "read-only"') == ("sandbox_mode", "read-only")
    assert parse_override("features.x=true") == ("features.x", True)
    with pytest.raises(UsageError):
        parse_override("no-equals-sign")


def test_the_local_app_server_gets_the_overrides() -> None:
    assert app_server_command(["model=x"])[-3:] == ["app-server", "-c", "model=x"]


def test_a_token_file_is_read_without_its_newline_and_must_not_be_empty(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("secret\n")
    assert read_token(token) == "secret"
    token.write_text("\n")
    with pytest.raises(UsageError, match="empty"):
        read_token(token)
    assert read_token(None) is None


def test_bad_arguments_exit_2_before_connecting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--cd", str(tmp_path / "missing")]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["--token-file", str(tmp_path / "t")]) == 2
    assert "--token-file needs --connect" in capsys.readouterr().err


def test_tether_tui_is_a_subcommand_of_tether(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tether_main(["tui", "-c", "oops"]) == 2
    assert "expected key=value" in capsys.readouterr().err


def test_attaching_to_a_daemon_that_is_not_there_fails_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--connect", f"unix://{tmp_path}/no.sock"]) == 1
    assert "tether tui:" in capsys.readouterr().err
