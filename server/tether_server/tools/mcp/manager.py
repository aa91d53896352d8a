"""Every configured MCP server, started in the background; their tools under model-visible names."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_server import log
from tether_server.tools.mcp.calls import CallOrigin, Json
from tether_server.tools.mcp.config import ServerConfig

if TYPE_CHECKING:
    from tether_server.tools.mcp.connection import ServerConnection

_log = log.get("tether.mcp")

PREFIX = "mcp__"
MAX_NAME_BYTES = 64
ElicitationHandler = Callable[[str, CallOrigin, Json, float], Awaitable[Json]]
"""(server, the call's turn, MCP elicitation params, timeout) → {action, content}."""


@dataclass(frozen=True)
class McpTool:
    """A server's tool as the model sees it, with what approval needs to know."""

    server: str
    name: str
    qualified: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    destructive: bool
    approval_mode: str

    @property
    def needs_approval(self) -> bool:
        """Ask before calling? `auto`: unless annotated read-only and not destructive."""
        if self.approval_mode == "approve":
            return False
        if self.approval_mode == "prompt":
            return True
        return self.destructive or not self.read_only


def qualified_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, with characters the Responses API refuses replaced, at most 64 bytes."""
    name = PREFIX + server + "__" + re.sub(r"[^A-Za-z0-9_-]", "_", tool)
    if len(name) <= MAX_NAME_BYTES:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return name[: MAX_NAME_BYTES - 9] + "_" + digest


class McpManager:
    """Owns the server connections; only a turn's first request waits for servers still starting."""

    def __init__(self, servers: list[ServerConfig]) -> None:
        self._configs = servers
        self._conns: dict[str, ServerConnection] = {}
        self.status_listeners: list[Callable[[str, str, str | None], None]] = []
        self.elicitation_handler: ElicitationHandler | None = None
        self.oauth_store: Path | None = None

    def start(self) -> None:
        if not self._configs:
            return
        # The SDK (about half a second of imports) loads only when a server is configured.
        from tether_server.tools.mcp.connection import ServerConnection

        for cfg in self._configs:
            if cfg.url and self.oauth_store is not None:
                cfg = replace(cfg, oauth_store=str(self.oauth_store))
            conn = ServerConnection(cfg, self._status, self._elicit)
            self._conns[cfg.name] = conn
            conn.start()

    async def restart(self, name: str) -> None:
        """Connect one server afresh: after an OAuth sign-in its new tokens are used at once."""
        from tether_server.tools.mcp.connection import ServerConnection

        old = self._conns.get(name)
        if old is None:
            return
        await old.stop()
        if self._conns.get(name) is not old:
            return  # a reload replaced it meanwhile, and started the new one with the new tokens
        conn = ServerConnection(old.config, self._status, self._elicit)
        self._conns[name] = conn
        conn.start()

    async def close(self) -> None:
        conns, self._conns = list(self._conns.values()), {}
        await asyncio.gather(*(c.stop() for c in conns), return_exceptions=True)

    async def reload(self, servers: list[ServerConfig]) -> None:
        """Stop every server and start the configured ones afresh."""
        await self.close()
        self._configs = servers
        self.start()

    async def wait_started(self) -> None:
        """Wait for the servers still starting, together, each at most its startup timeout: a turn
        asked to use a server's tool needs its tools in the first request."""
        starting = [c for c in self._conns.values() if c.state == "starting"]
        if not starting:
            return
        _log.info("mcp.waiting_for_servers", servers=[c.name for c in starting])
        await asyncio.gather(*(c.wait_started() for c in starting))

    def connections(self) -> list[ServerConnection]:
        return [self._conns[name] for name in sorted(self._conns)]

    def get(self, server: str) -> ServerConnection | None:
        return self._conns.get(server)

    def tools(self) -> list[McpTool]:
        """The tools of every ready server, ordered by name so the request prefix stays stable."""
        found: list[McpTool] = []
        for conn in self.connections():
            if conn.state != "ready":
                continue
            for tool in conn.tools:
                ann = tool.annotations
                found.append(
                    McpTool(
                        server=conn.name,
                        name=tool.name,
                        qualified=qualified_name(conn.name, tool.name),
                        description=tool.description or tool.title or "",
                        input_schema=dict(tool.input_schema or {}),
                        read_only=bool(ann and ann.read_only_hint),
                        destructive=bool(ann and ann.destructive_hint),
                        approval_mode=conn.config.approval_mode(tool.name),
                    )
                )
        found.sort(key=lambda t: t.qualified)
        return found

    def find(self, qualified: str) -> McpTool | None:
        if not qualified.startswith(PREFIX):
            return None
        return next((t for t in self.tools() if t.qualified == qualified), None)

    def _status(self, name: str, state: str, error: str | None) -> None:
        _log.info("mcp.status", server=name, state=state, error=error)
        for listener in self.status_listeners:
            listener(name, state, error)

    async def _elicit(self, conn: ServerConnection, params: Json) -> Json:
        """Route a server's elicitation to the clients of the turn whose call triggered it."""
        origin = conn.origins[-1] if conn.origins else None
        handler = self.elicitation_handler
        if origin is None or handler is None:
            return {"action": "decline"}
        if any(not origin.same_audience(other) for other in conn.origins):
            # A stdio elicitation names no call: with calls in flight for different clients, asking
            # any one of them could show another user's question to the wrong person.
            _log.warning("mcp.elicitation_ambiguous", server=conn.name, calls=len(conn.origins))
            return {"action": "decline"}
        timeout = conn.config.elicitation_timeout_sec
        try:
            return await asyncio.wait_for(handler(conn.name, origin, params, timeout), timeout)
        except TimeoutError:
            return {"action": "cancel"}
