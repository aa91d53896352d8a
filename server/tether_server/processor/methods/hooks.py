"""`hooks/list`: the command hooks of config.toml, per working directory."""

from __future__ import annotations

from tether_protocol.v2 import workspace as ws
from tether_server.config.hooks import configured_hooks
from tether_server.processor.settings import default_cwd
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext


def cwds_or_default(cwds: list[str]) -> list[str]:
    return cwds or [str(default_cwd())]


async def hooks_list(
    state: ServerState, ctx: RequestContext, params: ws.HooksListParams
) -> ws.HooksListResponse:
    """The command hooks of config.toml, as Codex lists them; Tether runs none (a warning says so)."""
    scan = configured_hooks(state.config.config.hooks, state.config.path)
    hooks = [
        ws.HookMetadata(
            key=h.key,
            event_name=h.event_name,
            command=h.command,
            matcher=h.matcher,
            timeout_sec=h.timeout_sec,
            status_message=h.status_message,
            source_path=str(h.source_path),
            display_order=h.display_order,
            current_hash=h.current_hash,
            trust_status="untrusted",
        )
        for h in scan.hooks
    ]
    errors = [ws.HookErrorInfo(path=str(state.config.path), message=m) for m in scan.errors]
    return ws.HooksListResponse(
        data=[
            ws.HooksListEntry(cwd=cwd, hooks=hooks, warnings=scan.warnings, errors=errors)
            for cwd in cwds_or_default(params.cwds)
        ]
    )
