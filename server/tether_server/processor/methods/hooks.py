"""`hooks/list`: the hooks that apply in each working directory, with their trust, as they will run."""

from __future__ import annotations

from pathlib import Path

from tether_protocol.v2 import workspace as ws
from tether_server.config.hook_sources import hooks_for
from tether_server.config.hooks import Hook
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
