"""Fleet nodes for the tests: real daemons on one PostgreSQL database, and what they report."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.support.appserver import AppServer
from tests.support.rpcclient import WAIT_S


def fleet_secret(folder: Path) -> Path:
    """A fleet secret file (48 random bytes) in `folder`."""
    secret = folder / "fleet.secret"
    secret.write_bytes(os.urandom(48))
    return secret


async def start_node(
    start_server: StartServer,
    url: str,
    name: str,
    home: Path,
    lease_s: float,
    *extra: str,
    secret: Path | None = None,
    experimental: bool = False,
) -> AppServer:
    """A daemon on `url` named `name`; with `secret`, listening for the fleet on a loopback port and
    answered once up (its fleet address is advertised by then)."""
    args = ["--store", url, "--node-id", name, "--lease-seconds", str(lease_s), *extra]
    if secret is not None:
        args += ["--fleet-listen", "ws://127.0.0.1:0", "--fleet-secret-file", str(secret)]
    node = await start_server(*args, home=home, initialize=False)
    await node.initialize(experimental=experimental)
    if secret is not None:
        await node.request("thread/loaded/list", {})
    return node


async def fleet_status(url: str) -> list[dict[str, Any]]:
    """`tether fleet status --json` on `url`: one entry per node."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tether_server", "fleet", "status", "--json",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_STORE": url},
    )  # fmt: skip
    async with asyncio.timeout(WAIT_S):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    nodes: list[dict[str, Any]] = json.loads(out)
    return nodes


def thread_events(client: AppServer, mark: int, tid: str) -> list[tuple[int, str]]:
    """(seq, method) of the thread's notifications since `mark`, as the client received them."""
    return [
        (m["seq"], m["method"])
        for m in client.since(mark)
        if "seq" in m and "id" not in m and (m.get("params") or {}).get("threadId") == tid
    ]
