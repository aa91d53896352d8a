"""Running an `mcp_tool` hook: a tool of a configured MCP server instead of a command.

As Codex 0.169.0 runs them (observed with a fixture server): the tool gets the handler's own
`input` as its arguments, and its text answer is read exactly as a command hook's stdout (a JSON
decision blocks, plain text is context where plain text counts). An unknown server fails the run
with `unknown MCP server '<name>'`; a tool that answers with an error fails it with `MCP tool
returned an error: <its text>`.
"""

from __future__ import annotations

import time

from tether_server.config.hooks import McpHandler
from tether_server.tools.hooks import HookProcessResult
from tether_server.tools.mcp.calls import CallOrigin, McpCallError
from tether_server.tools.mcp.manager import McpManager


async def run_mcp_hook(
    manager: McpManager | None, handler: McpHandler, timeout_s: float, origin: CallOrigin
) -> HookProcessResult:
    """The tool's answer in the shape of a finished command hook (exit 0, its text on stdout)."""
    started = time.monotonic()
    conn = manager.get(handler.server) if manager is not None else None
    if conn is None:
        return HookProcessResult(None, "", "", _ms(started), error=f"unknown MCP server '{handler.server}'")
    # A hook may fire before the server finished its handshake (SessionStart, the first prompt).
    await conn.wait_started()
    try:
        result = await conn.call_tool(handler.tool, dict(handler.arguments), origin, timeout_s=timeout_s)
    except McpCallError as exc:
        if str(exc).startswith("tool call timed out"):
            return HookProcessResult(None, "", "", _ms(started), timed_out=True)
        return HookProcessResult(None, "", "", _ms(started), error=str(exc))
    text = "".join(str(getattr(block, "text", "")) for block in result.content if block.type == "text")
    if result.is_error:
        return HookProcessResult(None, "", "", _ms(started), error=f"MCP tool returned an error: {text}")
    return HookProcessResult(0, text, "", _ms(started))


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
