"""`mcp_servers` tables: Codex's keys and defaults, bad entries left out with a warning."""

from __future__ import annotations

from typing import Any

import pytest

from tether_server.tools.mcp.config import parse_servers
from tether_server.tools.mcp.manager import McpTool, qualified_name


def test_stdio_and_http_servers_with_their_defaults() -> None:
    servers, warnings = parse_servers(
        {
            "web": {
                "url": "http://127.0.0.1:9/mcp",
                "bearer_token_env_var": "TOKEN",
                "http_headers": {"X": "1"},
            },
            "docs": {
                "command": "docs-server",
                "args": ["--fast"],
                "env": {"A": "b"},
                "enabled_tools": ["find"],
            },
        }
    )
    assert warnings == []
    assert [s.name for s in servers] == ["docs", "web"]
    docs, web = servers
    assert docs.transport == "stdio" and docs.args == ("--fast",) and docs.env == {"A": "b"}
    assert docs.startup_timeout_sec == 10 and docs.tool_timeout_sec == 60 and docs.enabled
    assert docs.allows("find") and not docs.allows("delete")
    assert web.transport == "http" and web.http_headers == {"X": "1"}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"command": "a", "url": "http://x"}, "set exactly one of `command` (stdio) or `url` (HTTP)"),
        ({"command": "a", "args": "not-a-list"}, "mcp_servers.bad.args: expected a list of strings"),
        ({"command": "a", "startup_timeout_sec": 0}, "startup_timeout_sec: expected a positive number"),
        ({"command": "a", "tools": {"t": {"approval_mode": "sometimes"}}}, "expected one of auto, prompt"),
    ],
)
def test_a_bad_entry_is_left_out_with_a_warning_naming_the_key(table: dict[str, Any], message: str) -> None:
    servers, warnings = parse_servers({"bad": table, "good": {"command": "ok"}})
    assert [s.name for s in servers] == ["good"]
    assert len(warnings) == 1 and message in warnings[0]


def _tool(read_only: bool, destructive: bool, mode: str) -> McpTool:
    return McpTool("s", "t", "mcp__s__t", "", {}, read_only, destructive, mode)


def test_approval_follows_the_annotations_unless_the_mode_says_otherwise() -> None:
    assert not _tool(True, False, "auto").needs_approval
    assert _tool(True, True, "auto").needs_approval
    assert _tool(False, False, "auto").needs_approval
    assert _tool(True, False, "prompt").needs_approval
    assert not _tool(False, True, "approve").needs_approval
    servers, _ = parse_servers(
        {
            "s": {
                "command": "x",
                "default_tools_approval_mode": "approve",
                "tools": {"rm": {"approval_mode": "prompt"}},
            }
        }
    )
    assert servers[0].approval_mode("ls") == "approve" and servers[0].approval_mode("rm") == "prompt"


def test_model_visible_names_are_namespaced_safe_and_short() -> None:
    assert qualified_name("docs", "find") == "mcp__docs__find"
    assert qualified_name("docs", "a.b c") == "mcp__docs__a_b_c"
    long = qualified_name("docs", "x" * 100)
    assert len(long) == 64 and long.startswith("mcp__docs__x")
