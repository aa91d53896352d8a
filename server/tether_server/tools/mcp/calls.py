"""What callers of an MCP server need without loading the `mcp` SDK (it loads with the first server)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]


class McpCallError(Exception):
    """A call could not be made or did not finish: not connected, timed out, transport failure."""


@dataclass
class CallOrigin:
    """The turn a call runs for: where an elicitation it triggers is asked."""

    thread_id: str
    turn_id: str | None
    caller: object | None = None
    """The connection of a direct `mcpServer/tool/call`: its elicitations go to it alone, never to
    the clients of the thread it names (which may be another user's)."""

    def same_audience(self, other: CallOrigin) -> bool:
        return self.thread_id == other.thread_id and self.caller is other.caller
