"""Hooks configured in config.toml (`[[hooks.<Event>]]` groups of `[[hooks.<Event>.hooks]]` handlers).

The listing follows what codex 0.169.0's `hooks/list` reports for the same file: one entry per
command or `mcp_tool` handler, keyed `<file>:<event_in_snake_case>:<group>:<handler>`, the group's `matcher`,
`timeout` in seconds (600 when unset), the handler's `statusMessage`, numbered in the order of the
events (PreModelRequest first, Interrupt last), then file order within an event.

Trust is recorded as Codex records it, in the user's config.toml: `[hooks.state."<key>"]` with
`trusted_hash = "<currentHash>"` (and `enabled = false` to switch a hook off). A hook whose entry
is missing is `untrusted`, one whose definition changed since (another hash) is `modified`; only
`trusted` and enabled hooks run. The hash is Tether's own (sha256 of the handler's definition): a
trust recorded by Codex for the same hook reads as `modified` until trusted again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

DEFAULT_TIMEOUT_S = 600
EVENTS = (
    "PreModelRequest",
    "PostModelRequest",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "Interrupt",
)
MANAGED_SETTINGS = ("managed_dir", "windows_managed_dir")
TrustStatus = Literal["trusted", "untrusted", "modified", "managed"]


@dataclass(frozen=True)
class HookLayer:
    """One place hooks come from: a config file's `[hooks]` table (config.toml, a trusted project's
    `.codex/config.toml`, an installed plugin's hook config)."""

    table: Any
    path: Path
    source: str = "user"  # HookSource on the wire: user, project, plugin...
    plugin_id: str | None = None
    key_prefix: str | None = None
    """What a hook's key starts with: the file's path, or for a plugin `<plugin id>:<file>`."""
    managed: bool = False
    """Managed requirements: run without the user's trust, which cannot switch them off."""


@dataclass(frozen=True)
class McpHandler:
    """An `mcp_tool` handler: a tool of a configured MCP server, called with the handler's fixed
    `input`; its text answer is read as a command hook's stdout (Codex 0.169.0, observed)."""

    server: str
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Hook:
    """One command handler of a configured hook group."""

    key: str
    event: str  # PascalCase, as in config.toml and on a hook's stdin
    command: str
    matcher: str | None
    timeout_sec: int
    status_message: str | None
    source_path: Path
    display_order: int
    current_hash: str
    source: str = "user"
    plugin_id: str | None = None
    is_async: bool = False
    additional_context_limit: int | None = None
    trust_status: TrustStatus = "untrusted"
    enabled: bool = True
    handler_type: str = "command"  # command | mcpTool
    mcp: McpHandler | None = None
    is_managed: bool = False

    @property
    def event_name(self) -> str:
        """camelCase, as on the wire."""
        return self.event[:1].lower() + self.event[1:]

    @property
    def runs(self) -> bool:
        return self.enabled and self.trust_status in ("trusted", "managed")


@dataclass
class HookScan:
    hooks: list[Hook] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)

    def running(self) -> list[Hook]:
        return [hook for hook in self.hooks if hook.runs]


def configured_hooks(table: Any, source: Path) -> HookScan:
    """The hooks of one config file's `[hooks]` table, trusted by its own `hooks.state`."""
    return discover([HookLayer(table, source)], table.get("state") if isinstance(table, dict) else None)


def discover(layers: Sequence[HookLayer], state: Any) -> HookScan:
    """Every layer's hooks, numbered together; `state` is the user config's `hooks.state` table."""
    found: list[tuple[int, int, Hook]] = []
    scan = HookScan()
    for layer_no, layer in enumerate(layers):
        found.extend((EVENTS.index(hook.event), layer_no, hook) for hook in _layer_hooks(layer, scan))
    found.sort(key=lambda entry: (entry[0], entry[1]))
    states = state if isinstance(state, dict) else {}
    for order, (_, _, hook) in enumerate(found):
        if hook.is_managed:
            scan.hooks.append(_with(hook, order, "managed", True))
            continue
        entry = states.get(hook.key)
        entry = entry if isinstance(entry, dict) else {}
        scan.hooks.append(
            _with(hook, order, _trust(entry.get("trusted_hash"), hook.current_hash), entry.get("enabled"))
        )
    return scan


def _trust(trusted_hash: Any, current: str) -> TrustStatus:
    if not isinstance(trusted_hash, str):
        return "untrusted"
    return "trusted" if trusted_hash == current else "modified"


def _with(hook: Hook, order: int, trust: TrustStatus, enabled: Any) -> Hook:
    return replace(hook, display_order=order, trust_status=trust, enabled=enabled is not False)


def _layer_hooks(layer: HookLayer, scan: HookScan) -> list[Hook]:
    table = layer.table
    if not isinstance(table, dict):
        return []
    hooks: list[Hook] = []
    for event, groups in table.items():
        if event == "state" or (layer.managed and event in MANAGED_SETTINGS):
            continue  # trust and enablement, or where managed hooks live: not events
        if event not in EVENTS or not isinstance(groups, list):
            expected = ", ".join(EVENTS)
            scan.errors.append((layer.path, f"hooks.{event}: not a hook event (expected one of {expected})"))
            continue
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                hook = _handler(scan, layer, event, g, h, group, handler)
                if hook is not None:
                    hooks.append(hook)
    return hooks


def _handler(
    scan: HookScan, layer: HookLayer, event: str, g: int, h: int, group: dict[str, Any], handler: Any
) -> Hook | None:
    where = f"hooks.{event}[{g}].hooks[{h}]"
    kind = handler.get("type", "command") if isinstance(handler, dict) else None
    if kind not in ("command", "mcp_tool"):
        scan.warnings.append(f"{where}: only command and mcp_tool hooks are run")
        return None
    assert isinstance(handler, dict)
    mcp = _mcp_handler(handler) if kind == "mcp_tool" else None
    command = handler.get("command") if mcp is None else ""
    if mcp is None and kind == "mcp_tool":
        scan.errors.append((layer.path, f"{where}: an mcp_tool hook needs `server` and `tool`"))
        return None
    if not isinstance(command, str) or (mcp is None and not command):
        scan.errors.append((layer.path, f"{where}: missing `command`"))
        return None
    timeout = handler.get("timeout", handler.get("timeoutSec"))
    matcher, status = group.get("matcher"), handler.get("statusMessage")
    limit = handler.get("additionalContextLimit")
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
    definition = {"event": event, "matcher": matcher, "handler": handler}
    digest = hashlib.sha256(json.dumps(definition, sort_keys=True, default=str).encode()).hexdigest()
    return Hook(
        key=f"{layer.key_prefix or layer.path}:{snake}:{g}:{h}",
        event=event,
        command=command,
        matcher=matcher if isinstance(matcher, str) else None,
        timeout_sec=timeout if isinstance(timeout, int) and timeout > 0 else DEFAULT_TIMEOUT_S,
        status_message=status if isinstance(status, str) else None,
        source_path=layer.path,
        display_order=0,
        current_hash=f"sha256:{digest}",
        source=layer.source,
        plugin_id=layer.plugin_id,
        is_async=handler.get("async") is True,
        additional_context_limit=limit if isinstance(limit, int) and limit >= 0 else None,
        handler_type="command" if mcp is None else "mcpTool",
        mcp=mcp,
        is_managed=layer.managed,
    )


def _mcp_handler(handler: dict[str, Any]) -> McpHandler | None:
    server, tool, arguments = handler.get("server"), handler.get("tool"), handler.get("input")
    if not isinstance(server, str) or not server or not isinstance(tool, str) or not tool:
        return None
    return McpHandler(server, tool, arguments if isinstance(arguments, dict) else {})


def matches(hook: Hook, subject: str | None) -> bool:
    """Whether `hook` applies to `subject` (a tool name, a session start's source): no matcher,
    `*` or an empty one match everything; otherwise the matcher is a regular expression that must
    match the whole subject."""
    if hook.matcher in (None, "", "*") or subject is None:
        return True
    try:
        return re.fullmatch(hook.matcher, subject) is not None
    except re.error:
        return hook.matcher == subject
