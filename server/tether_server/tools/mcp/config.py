"""`mcp_servers.<name>` tables, with Codex's keys, checked into `ServerConfig`s."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

APPROVAL_MODES = ("auto", "prompt", "approve")
"""Per tool: `auto` asks for tools not annotated read-only (or annotated destructive), `prompt`
always asks, `approve` never does."""

OAUTH_STORE_FILE = "mcp_oauth.json"
"""In the home: the OAuth tokens of HTTP servers (`mcpServer/oauth/login`), 0600."""

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


class McpConfigError(ValueError):
    """An `mcp_servers` entry Tether cannot use; the message names the key."""


@dataclass(frozen=True)
class ServerConfig:
    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    bearer_token_env_var: str | None = None
    http_headers: dict[str, str] = field(default_factory=dict)
    enabled: bool = True
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    startup_timeout_sec: float = 10.0
    tool_timeout_sec: float = 60.0
    default_tools_approval_mode: str = "auto"
    tool_approval_modes: dict[str, str] = field(default_factory=dict)
    # Tether's: how long an elicitation waits for a client before it is cancelled.
    elicitation_timeout_sec: float = 60.0
    plugin_id: str | None = None  # the installed plugin that brought this server
    oauth_store: str | None = None  # the OAuth tokens file, for an HTTP server (set by the manager)

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    def allows(self, tool: str) -> bool:
        if self.enabled_tools is not None and tool not in self.enabled_tools:
            return False
        return tool not in self.disabled_tools

    def approval_mode(self, tool: str) -> str:
        return self.tool_approval_modes.get(tool, self.default_tools_approval_mode)


def _strings(name: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"mcp_servers.{name}.{key}: expected a list of strings")
    return tuple(value)


def _table(name: str, key: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise McpConfigError(f"mcp_servers.{name}.{key}: expected a table of strings")
    return {str(k): v for k, v in value.items()}


def _seconds(name: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise McpConfigError(f"mcp_servers.{name}.{key}: expected a positive number of seconds")
    return float(value)


def _approval(name: str, key: str, value: Any) -> str:
    if value not in APPROVAL_MODES:
        raise McpConfigError(f"mcp_servers.{name}.{key}: expected one of {', '.join(APPROVAL_MODES)}")
    return str(value)


def _tool_modes(name: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise McpConfigError(f"mcp_servers.{name}.tools: expected a table of tool tables")
    modes: dict[str, str] = {}
    for tool, table in value.items():
        if isinstance(table, dict) and "approval_mode" in table:
            modes[str(tool)] = _approval(name, f"tools.{tool}.approval_mode", table["approval_mode"])
    return modes


def parse_server(name: str, raw: Any) -> ServerConfig:
    """One server's table; raises McpConfigError on a key of the wrong shape."""
    if not _NAME.match(name):
        raise McpConfigError(f"mcp_servers.{name}: names may hold only letters, digits, '-' and '_'")
    if not isinstance(raw, dict):
        raise McpConfigError(f"mcp_servers.{name}: expected a table")
    command, url = raw.get("command"), raw.get("url")
    if (command is None) == (url is None):
        raise McpConfigError(f"mcp_servers.{name}: set exactly one of `command` (stdio) or `url` (HTTP)")
    for key, value in (("command", command), ("url", url), ("cwd", raw.get("cwd"))):
        if value is not None and not isinstance(value, str):
            raise McpConfigError(f"mcp_servers.{name}.{key}: expected a string")
    token_var = raw.get("bearer_token_env_var")
    if token_var is not None and not isinstance(token_var, str):
        raise McpConfigError(f"mcp_servers.{name}.bearer_token_env_var: expected a string")
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise McpConfigError(f"mcp_servers.{name}.enabled: expected true or false")
    return ServerConfig(
        name=name,
        command=command,
        args=_strings(name, "args", raw.get("args", [])),
        env=_table(name, "env", raw.get("env", {})),
        cwd=raw.get("cwd"),
        url=url,
        bearer_token_env_var=token_var,
        http_headers=_table(name, "http_headers", raw.get("http_headers", {})),
        enabled=enabled,
        enabled_tools=_strings(name, "enabled_tools", raw["enabled_tools"])
        if "enabled_tools" in raw
        else None,
        disabled_tools=_strings(name, "disabled_tools", raw.get("disabled_tools", [])),
        startup_timeout_sec=_seconds(name, "startup_timeout_sec", raw.get("startup_timeout_sec", 10)),
        tool_timeout_sec=_seconds(name, "tool_timeout_sec", raw.get("tool_timeout_sec", 60)),
        default_tools_approval_mode=_approval(
            name, "default_tools_approval_mode", raw.get("default_tools_approval_mode", "auto")
        ),
        tool_approval_modes=_tool_modes(name, raw.get("tools", {})),
        elicitation_timeout_sec=_seconds(
            name, "elicitation_timeout_sec", raw.get("elicitation_timeout_sec", 60)
        ),
    )


def parse_servers(raw: Any) -> tuple[list[ServerConfig], list[str]]:
    """Every usable server in name order, and a warning for each entry left out."""
    if raw is None:
        return [], []
    if not isinstance(raw, dict):
        return [], ["mcp_servers: expected a table of servers"]
    servers: list[ServerConfig] = []
    warnings: list[str] = []
    for name in sorted(raw):
        try:
            servers.append(parse_server(str(name), raw[name]))
        except McpConfigError as exc:
            warnings.append(str(exc))
    return servers, warnings
