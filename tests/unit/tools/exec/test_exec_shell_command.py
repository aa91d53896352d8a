"""Building the shell argv, the wire `command` string and the commandActions of a script."""

from __future__ import annotations

import shlex
from pathlib import Path

from tether_server.tools.exec import build_shell_argv, default_shell, join_command, parse_command_actions


def test_login_shell_script_runs_with_dash_lc() -> None:
    assert build_shell_argv("echo hi", "/bin/bash", True) == ["/bin/bash", "-lc", "echo hi"]


def test_non_login_shell_script_runs_with_dash_c() -> None:
    assert build_shell_argv("echo hi", "/bin/zsh", False) == ["/bin/zsh", "-c", "echo hi"]


def test_no_shell_requested_uses_an_executable_default_shell() -> None:
    argv = build_shell_argv("echo hi", None, True)

    assert argv[0] == default_shell()
    assert Path(argv[0]).is_absolute()


def test_command_string_is_shell_quoted_like_codex() -> None:
    argv = ["/bin/bash", "-c", "echo hi > out.txt && cat out.txt"]

    assert join_command(["/bin/bash", "-lc", "echo hi"]) == "/bin/bash -lc 'echo hi'"
    assert join_command(argv) == "/bin/bash -c 'echo hi > out.txt && cat out.txt'"


def test_script_with_redirection_is_one_unknown_action() -> None:
    cmd = "echo hi > out.txt && cat out.txt"

    assert parse_command_actions(cmd) == [{"type": "unknown", "command": cmd}]


def test_cat_of_a_file_is_a_read_action_resolved_against_cwd() -> None:
    actions = parse_command_actions("cat src/main.py", Path("/proj"))

    assert actions == [
        {"type": "read", "command": "cat src/main.py", "name": "main.py", "path": "/proj/src/main.py"}
    ]


def test_sed_print_range_is_a_read_action() -> None:
    actions = parse_command_actions("sed -n '1,20p' README.md")

    assert actions == [
        {"type": "read", "command": "sed -n '1,20p' README.md", "name": "README.md", "path": "README.md"}
    ]


def test_listing_and_search_with_a_formatter_pipe_are_described_in_order() -> None:
    actions = parse_command_actions("cd src && ls -la && rg -n TODO lib | head -n 5")

    assert actions == [
        {"type": "listFiles", "command": "ls -la", "path": None},
        {"type": "search", "command": "rg -n TODO lib", "query": "TODO", "path": "lib"},
    ]


def test_unknown_program_makes_the_whole_script_unknown() -> None:
    cmd = "ls && make test"

    assert parse_command_actions(cmd) == [{"type": "unknown", "command": cmd}]


def test_unbalanced_quotes_are_unknown() -> None:
    assert parse_command_actions("cat 'oops") == [{"type": "unknown", "command": "cat 'oops"}]


def test_words_with_single_quotes_are_double_quoted_like_rust_shlex() -> None:
    assert join_command(["/bin/bash", "-lc", "echo 'hi'"]) == "/bin/bash -lc \"echo 'hi'\""
    assert join_command(["'\""]) == '"\'\\""'
    assert join_command([""]) == "''"


def test_words_mixing_quotes_and_dollars_switch_quoting_mid_word() -> None:
    assert join_command(["it's $HOME"]) == "\"it's \"'$HOME'"


def test_joined_command_splits_back_into_the_same_words() -> None:
    words = ["/bin/bash", "-lc", "echo 'a' \"b\" $c \\d ^e !f `g` é\n", "", "^x", "a=b"]

    assert shlex.split(join_command(words)) == words
