"""Hooks configured in config.toml (`[[hooks.<Event>]]` groups of `[[hooks.<Event>.hooks]]` handlers).

The listing follows what codex 0.169.0's `hooks/list` reports for the same file: one entry per
command handler, keyed `<file>:<event_in_snake_case>:<group>:<handler>`, the group's `matcher`,
`timeout` in seconds (600 when unset), the handler's `statusMessage`, numbered in file order.
Tether does not run hooks: every entry is reported `untrusted` (Codex's state for a hook nobody
has reviewed, which it skips) and the listing carries a warning saying so.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
NOT_RUN = "Tether does not run hooks yet; the hooks configured in {path} are listed but never run"


@dataclass(frozen=True)
class Hook:
    """One command handler of a configured hook group."""

    key: str
    event_name: str  # camelCase, as on the wire
    command: str
    matcher: str | None
    timeout_sec: int
    status_message: str | None
    source_path: Path
    display_order: int
    current_hash: str


@dataclass
class HookScan:
    hooks: list[Hook]
    warnings: list[str]
    errors: list[str]


def configured_hooks(table: Any, source: Path) -> HookScan:
    """The hooks of a config file's `[hooks]` table (`source` names the file)."""
    scan = HookScan([], [], [])
    if not isinstance(table, dict):
        return scan
    for event, groups in table.items():
        if event == "state":
            continue  # per-hook trust and enablement, written by Codex; not an event
        if event not in EVENTS or not isinstance(groups, list):
            scan.errors.append(f"hooks.{event}: not a hook event (expected one of {', '.join(EVENTS)})")
            continue
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                _add(scan, event, g, h, group, handler, source)
    if scan.hooks:
        scan.warnings.append(NOT_RUN.format(path=source))
    return scan


def _add(
    scan: HookScan, event: str, g: int, h: int, group: dict[str, Any], handler: Any, source: Path
) -> None:
    where = f"hooks.{event}[{g}].hooks[{h}]"
    if not isinstance(handler, dict) or handler.get("type", "command") != "command":
        scan.warnings.append(f"{where}: only command hooks are listed")
        return
    command = handler.get("command")
    if not isinstance(command, str) or not command:
        scan.errors.append(f"{where}: missing `command`")
        return
    timeout = handler.get("timeout")
    matcher, status = group.get("matcher"), handler.get("statusMessage")
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
    definition = {"event": event, "matcher": matcher, "handler": handler}
    digest = hashlib.sha256(json.dumps(definition, sort_keys=True, default=str).encode()).hexdigest()
    scan.hooks.append(
        Hook(
            key=f"{source}:{snake}:{g}:{h}",
            event_name=event[:1].lower() + event[1:],
            command=command,
            matcher=matcher if isinstance(matcher, str) else None,
            timeout_sec=timeout if isinstance(timeout, int) and timeout > 0 else DEFAULT_TIMEOUT_S,
            status_message=status if isinstance(status, str) else None,
            source_path=source,
            display_order=len(scan.hooks),
            current_hash=f"sha256:{digest}",
        )
    )
