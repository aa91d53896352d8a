"""Helpers for the MCP tests: the fixture server's config, waiting for a server's state."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from pathlib import Path
from typing import Any

from tests.support.rpcclient import RpcClient

FIXTURE = Path(__file__).with_name("mcp_fixture_server.py")


def stdio_server(name: str, *extra: str, **keys: Any) -> list[str]:
    """`-c` overrides configuring the fixture as stdio server `name`."""
    args = [str(FIXTURE), *extra]
    out = ["-c", f"mcp_servers.{name}.command={json.dumps(sys.executable)}"]
    out += ["-c", f"mcp_servers.{name}.args={json.dumps(args)}"]
    for key, value in keys.items():
        out += ["-c", f"mcp_servers.{name}.{key}={json.dumps(value)}"]
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def start_http_fixture(port: int, log: Path) -> asyncio.subprocess.Process:
    """The fixture on streamable HTTP; returns once it accepts connections."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(FIXTURE),
        "--http",
        str(port),
        "--log",
        str(log),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    async with asyncio.timeout(20):
        while True:
            try:
                _reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)  # the child is still binding its socket
                continue
            writer.close()
            return proc


async def status_of(server: RpcClient, name: str) -> dict[str, Any]:
    data = (await server.request("mcpServerStatus/list", {}))["data"]
    return next(s for s in data if s["name"] == name)


async def wait_status(server: RpcClient, name: str, want: str, *, after: int | None = None) -> dict[str, Any]:
    """The server's status entry once its runtime status is `want` (waits on the notification)."""
    mark = server.mark() if after is None else after
    entry = await status_of(server, name)
    if entry["runtimeStatus"] == want:
        return entry
    startup = {"connected": "ready"}.get(want, want)
    await server.notification(
        "mcpServer/startupStatus/updated",
        after=mark,
        within_s=30,
        where=lambda p: p.get("name") == name and p.get("status") == startup,
    )
    return await status_of(server, name)


async def run_turn(server: RpcClient, thread_id: str, text: str) -> tuple[int, dict[str, Any]]:
    mark = server.mark()
    params = {"threadId": thread_id, "input": [{"type": "text", "text": text}]}
    await server.request("turn/start", params)
    done = await server.notification("turn/completed", after=mark, within_s=60)
    return mark, done["params"]["turn"]


def items_of(server: RpcClient, mark: int, method: str, kind: str) -> list[dict[str, Any]]:
    return [
        m["params"]["item"]
        for m in server.since(mark)
        if m.get("method") == method and m["params"]["item"]["type"] == kind
    ]
