"""`hooks/list`: the hooks that apply in each working directory, with their trust, as they will run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether_protocol.v2 import workspace as ws
from tether_server.config import LoadedConfig
from tether_server.config.hook_sources import hooks_for
from tether_server.config.hooks import Hook
from tether_server.config.layers import file_stamp, system_dir
from tether_server.config.requirements import FILE as REQUIREMENTS_FILE
from tether_server.errors import InvalidRequest, NotFound
from tether_server.processor.settings import default_cwd
from tether_server.processor.state import ServerState
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext


def cwds_or_default(cwds: list[str]) -> list[str]:
    return cwds or [str(default_cwd())]


def running_hooks(state: ServerState, cwd: Path) -> list[Hook]:
    """The hooks a turn in `cwd` runs: trusted and enabled, from every source (read now, so a hook
    trusted through config/batchWrite runs from the next turn on)."""
    return hooks_for(state.config, cwd, state.hook_sources).running()


class RunningHooks:
    """`running_hooks`, with the last scan of each working directory kept under the stats of the
    files it came from, so that a turn whose hooks did not change finds them on the event loop
    (a thread hop per turn was a tenth of a one-delta turn).

    The scan depends on the user config (a new `LoadedConfig` after each write), the managed
    requirements, the hook sources' files (installed plugins) and, in a trusted project, the
    project's `.codex/config.toml` files from its root down. Which folders those are depends on
    the tree (where `.git` is), so while the config trusts any project nothing is kept and every
    turn scans again, as before.
    """

    def __init__(self, state: ServerState) -> None:
        self._state = state
        self._last: dict[str, tuple[LoadedConfig, tuple[Any, ...], list[Hook]]] = {}

    def __call__(self, cwd: Path) -> list[Hook]:
        """Scan now (reads files: off the event loop), and keep the result when it can be kept."""
        loaded, stamps = self._state.config, self._stamps()  # before: a change meanwhile shows next time
        hooks = running_hooks(self._state, cwd)
        if stamps is not None and not _trusts_a_project(loaded):
            self._last[str(cwd)] = (loaded, stamps, hooks)
        return hooks

    def unchanged(self, cwd: Path) -> list[Hook] | None:
        """The last scan's hooks when nothing it came from changed since (stats only); else None."""
        known = self._last.get(str(cwd))
        if known is None or known[0] is not self._state.config:
            return None
        stamps = self._stamps()
        return known[2] if stamps is not None and stamps == known[1] else None

    def _stamps(self) -> tuple[Any, ...] | None:
        files = [system_dir() / REQUIREMENTS_FILE, *self._state.hook_source_files]
        try:
            return tuple(file_stamp(path) for path in files)
        except OSError:
            return None


def _trusts_a_project(loaded: LoadedConfig) -> bool:
    projects = loaded.config.projects
    return isinstance(projects, dict) and any(
        isinstance(entry, dict) and entry.get("trust_level") == "trusted" for entry in projects.values()
    )


async def hooks_list(
    state: ServerState, ctx: RequestContext, params: ws.HooksListParams
) -> ws.HooksListResponse:
    """Every configured hook per working directory (a loaded thread's own with `threadId`)."""
    cwds = cwds_or_default(params.cwds)
    if params.thread_id is not None:
        # Codex's checks and words, in its order.
        if params.cwds:
            raise InvalidRequest("specify either threadId or cwds")
        check_thread_id(params.thread_id)
        handle = state.threads.get(params.thread_id)
        if handle is None:
            raise NotFound(f"thread not found: {params.thread_id}")
        cwds = [handle.settings.cwd]
    return ws.HooksListResponse(data=[_entry(state, cwd) for cwd in cwds])


def _entry(state: ServerState, cwd: str) -> ws.HooksListEntry:
    scan = hooks_for(state.config, Path(cwd), state.hook_sources)
    return ws.HooksListEntry(
        cwd=cwd,
        hooks=[_metadata(h) for h in scan.hooks],
        warnings=scan.warnings,
        errors=[ws.HookErrorInfo(path=str(path), message=message) for path, message in scan.errors],
    )


def _metadata(h: Hook) -> ws.HookMetadata:
    return ws.HookMetadata.model_validate(
        {
            "key": h.key,
            "eventName": h.event_name,
            "handlerType": h.handler_type,
            "command": h.command if h.mcp is None else None,
            "async": h.is_async,
            "server": h.mcp.server if h.mcp is not None else None,
            "tool": h.mcp.tool if h.mcp is not None else None,
            "matcher": h.matcher,
            "timeoutSec": h.timeout_sec,
            "statusMessage": h.status_message,
            "additionalContextLimit": h.additional_context_limit,
            "sourcePath": str(h.source_path),
            "source": h.source,
            "pluginId": h.plugin_id,
            "displayOrder": h.display_order,
            "enabled": h.enabled,
            "isManaged": h.is_managed,
            "currentHash": h.current_hash,
            "trustStatus": h.trust_status,
        }
    )
