"""Hooks from config.toml, listed as Codex lists them (Tether runs none)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tether_server.config.hooks import DEFAULT_TIMEOUT_S, configured_hooks

CONFIG = """
[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "echo pre"
timeout = 30
statusMessage = "checking"

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "echo stop"
[[hooks.Stop.hooks]]
type = "prompt"

[[hooks.Sometimes]]
[[hooks.Sometimes.hooks]]
command = "x"

[hooks.state]
anything = true
"""


def test_command_hooks_are_listed_with_codex_keys_defaults_and_order() -> None:
    source = Path("/home/u/.tether/config.toml")
    scan = configured_hooks(tomllib.loads(CONFIG)["hooks"], source)
    pre, stop = scan.hooks
    assert (pre.key, pre.event_name, pre.matcher, pre.timeout_sec, pre.status_message) == (
        f"{source}:pre_tool_use:0:0",
        "preToolUse",
        "Bash",
        30,
        "checking",
    )
    assert (stop.key, stop.event_name, stop.matcher, stop.timeout_sec) == (
        f"{source}:stop:0:0",
        "stop",
        None,
        DEFAULT_TIMEOUT_S,
    )
    assert [h.display_order for h in scan.hooks] == [0, 1]
    assert pre.current_hash != stop.current_hash and pre.current_hash.startswith("sha256:")
    ((where, message),) = scan.errors
    assert where == source and message.startswith("hooks.Sometimes: not a hook event (expected one of ")
    assert scan.warnings == ["hooks.Stop[0].hooks[1]: only command and mcp_tool hooks are run"]


def test_no_hooks_table_lists_nothing_and_warns_of_nothing() -> None:
    scan = configured_hooks(None, Path("/c.toml"))
    assert (scan.hooks, scan.warnings, scan.errors) == ([], [], [])
