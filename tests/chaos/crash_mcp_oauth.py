"""The crash battery's MCP OAuth sign-ins: in the first rounds the daemon has an OAuth MCP server
(the `mcp` SDK's, on loopback) configured, and beside each turn a client signs in to it with
`mcpServer/oauth/login`, playing the browser, one sign-in at a time. After a kill, mcp_oauth.json
parses, is 0600, holds the tokens of the last sign-in that completed (`mcpServer/oauthLogin/completed`)
or of the one the kill cut off, never older ones; no temporary copy of the tokens is left beside it.

Only a few rounds configure the server: each daemon that has one loads the SDK (~0.7 s)."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import httpx

from tests.integration.mcp_oauth.test_mcp_oauth_login import Guarded, _start_guarded
from tests.support.rpcclient import RpcClient

ROUNDS = 2
NAME = "guarded"


class McpSignIns:
    def __init__(self, home: Path, scratch: Path) -> None:
        self.home, self.scratch = home, scratch
        self.rounds = 0
        self.asked = 0
        self.completed = 0
        self.done_tokens: list[str] = []  # access tokens on disk after each completed sign-in
        self.cut_off = False  # a sign-in was asked and its completion not seen before the kill
        self._lock = asyncio.Lock()
        self._proc: asyncio.subprocess.Process | None = None
        self._server: Guarded | None = None

    async def daemon_args(self) -> list[str]:
        """The next daemon's flags: the server in the first rounds, nothing after."""
        self.rounds += 1
        if self.rounds > ROUNDS:
            await self.close()
            return []
        if self._server is None:
            self.scratch.mkdir(parents=True, exist_ok=True)
            self._proc, self._server = await _start_guarded(self.scratch)
        return self._server.config(NAME)

    async def close(self) -> None:
        proc, self._proc, self._server = self._proc, None, None
        if proc is not None:
            proc.kill()
            await proc.wait()

    async def step(self, client: RpcClient) -> None:
        if self._server is None:
            return
        async with self._lock:
            self.asked += 1
            self.cut_off = True
            mark = client.mark()
            answer = await client.request("mcpServer/oauth/login", {"name": NAME})
            async with httpx.AsyncClient(follow_redirects=True, timeout=30) as browser:
                page = await browser.get(answer["authorizationUrl"])
            assert page.status_code == 200, page.text
            done = await client.notification(
                "mcpServer/oauthLogin/completed",
                after=mark,
                where=lambda p: p.get("loginId") == answer["loginId"],
            )
            assert done["params"]["success"] is True, done
            self.done_tokens.append(self._stored_token() or "")
            self.completed += 1
            self.cut_off = False

    def _stored_token(self) -> str | None:
        path = self.home / "mcp_oauth.json"
        leftovers = [p.name for p in self.home.glob(".mcp_oauth.json.*")]
        assert not leftovers, f"temporary copies of the MCP tokens left behind: {leftovers}"
        if not path.exists():
            return None
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, "mcp_oauth.json is readable by others"
        entries = json.loads(path.read_text())  # a half-written file fails here
        (entry,) = entries.values()
        tokens = entry.get("tokens")
        return str(tokens["access_token"]) if isinstance(tokens, dict) else None

    async def check(self, client: RpcClient) -> None:
        """Called on a restarted daemon: the file is as the last completed sign-in left it, or newer."""
        del client  # the file is what a kill can damage; the daemon reads it back as it is
        stored = self._stored_token()
        last = self.done_tokens[-1] if self.done_tokens else None
        if stored != last:
            assert self.cut_off, "mcp_oauth.json changed though no sign-in was under way"
            assert stored is not None and stored not in self.done_tokens, "older MCP tokens after the kill"
            self.done_tokens.append(stored)  # the cut-off sign-in finished its write: the new baseline
        self.cut_off = False
