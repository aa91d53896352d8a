"""`tether mcp-server`: Tether as an MCP server on stdio, so other agents can delegate work to it.

Two tools: `tether` starts a thread and runs one turn, `tether-reply` runs the next turn of a
thread; each returns the turn's final message and the thread id. Behind them is a `tether
app-server` child spawned on first use. Nobody is at this end to approve anything: threads run
with the approval policy the caller chose (default `never`), and any approval request that still
arrives is declined by the client's safe defaults.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

from tether_client.client import Client
from tether_client.transport import StdioTransport

Sandbox = Literal["read-only", "workspace-write", "danger-full-access"]
Approval = Literal["untrusted", "on-request", "never"]


class TurnReply(BaseModel):
    """What a delegated turn produced."""

    threadId: str
    content: str
    status: str


class Backend:
    """One app-server child, started on the first call and shared by every call after it."""

    def __init__(self, command: list[str]) -> None:
        self._command = command
        self._client: Client | None = None
        self._lock = asyncio.Lock()

    async def client(self) -> Client:
        async with self._lock:
            if self._client is None:
                transport = await StdioTransport.spawn(self._command)
                client = Client(transport)
                await client.initialize(name="tether_mcp_server")
                self._client = client
            return self._client

    async def run(self, thread_id: str, prompt: str) -> TurnReply:
        client = await self.client()
        stream = client.run_turn(thread_id, prompt)
        turn = await stream.wait()
        content = stream.final_message or ""
        if turn.status != "completed" and turn.error is not None:
            content = content or f"turn {turn.status}: {turn.error.message}"
        return TurnReply(threadId=thread_id, content=content, status=turn.status)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()


def _absolute(cwd: str | None) -> str:
    """The thread's directory: `cwd` made absolute, else the server's own."""
    return os.path.abspath(cwd or os.getcwd())


def build(backend: Backend) -> MCPServer:
    app = MCPServer("tether", instructions="Delegate coding work to a Tether agent.")
    open_world = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=True)

    @app.tool(name="tether", annotations=open_world)
    async def tether(
        prompt: str,
        cwd: str | None = None,
        sandbox: Sandbox | None = None,
        approval_policy: Approval = "never",
        model: str | None = None,
    ) -> TurnReply:
        """Start a Tether thread with `prompt` and run it to its answer; returns the thread id."""
        fields: dict[str, Any] = {"cwd": _absolute(cwd)}
        fields["approval_policy"] = approval_policy
        if sandbox:
            fields["sandbox"] = sandbox
        if model:
            fields["model"] = model
        client = await backend.client()
        started = await client.start_thread(**fields)
        return await backend.run(started.thread.id, prompt)

    @app.tool(name="tether-reply", annotations=open_world)
    async def tether_reply(threadId: str, prompt: str) -> TurnReply:
        """Continue the Tether thread `threadId` with `prompt`; returns its next answer."""
        client = await backend.client()
        await client.request_raw("thread/resume", {"threadId": threadId})
        return await backend.run(threadId, prompt)

    return app


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tether mcp-server", description=__doc__.split("\n")[0])
    parser.add_argument("-c", "--config", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--profile", default=None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `tether mcp-server` (dispatched from `tether`'s CLI)."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    command = [sys.executable, "-m", "tether_server", "app-server"]
    for override in args.overrides:
        command += ["-c", override]
    if args.profile:
        command += ["--profile", args.profile]
    backend = Backend(command)
    app = build(backend)

    async def serve() -> None:
        try:
            await app.run_stdio_async()
        finally:
            await backend.close()

    asyncio.run(serve())
    return 0
