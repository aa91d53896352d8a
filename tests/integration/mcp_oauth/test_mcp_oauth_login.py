"""`mcpServer/oauth/login` against an `mcp` SDK server that requires OAuth, on loopback.

Observed on Codex 0.169.0 with the same server (oauth_mcp_server.py) in its config.toml:
- before: `mcpServerStatus/list` has `authStatus: "notLoggedIn"` and a startup error; a plain
  server without auth `"unsupported"`, an unreachable one `"unknown"`.
- the answer is `{authorizationUrl, loginId}` (a UUIDv7): the server's /authorize with
  `response_type=code`, the registered `client_id`, `state`, an S256 `code_challenge`,
  `redirect_uri=http://127.0.0.1:<port>/callback/<random>` and `resource=<server url>`.
- the browser coming back to the redirect URI reads "Authentication complete. You may close this
  window."; then `mcpServer/oauthLogin/completed {name, threadId: null, loginId, success: true}`
  (no `error` key); the server is reconnected with its tools and `authStatus: "oAuth"`.
- the tokens are kept in the home (Codex: `.credentials.json`, 0600, without a keyring).
- no browser within `timeoutSecs` (0, negative and 1 all accepted): `completed` with
  `success: false, error: "timed out waiting for OAuth callback"`.
- a server that cannot sign in: -32603 "failed to login to MCP server '<name>': <why>".
"""

from __future__ import annotations

import asyncio
import json
import re
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.conftest import StartServer
from tests.integration.tools_ext.mcp_support import free_port, run_turn, status_of, wait_status
from tests.support.rpcclient import RpcClient, RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

SERVER = Path(__file__).with_name("oauth_mcp_server.py")
DONE_PAGE = "Authentication complete. You may close this window."


class Guarded:
    def __init__(self, port: int, log: Path) -> None:
        self.port, self.log = port, log
        self.drain: asyncio.Task[bytes] | None = None
        self.url = f"http://127.0.0.1:{port}/mcp"

    def events(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def config(self, name: str = "guarded") -> list[str]:
        return ["-c", f"mcp_servers.{name}.url={json.dumps(self.url)}"]


async def _start_guarded(tmp_path: Path, *extra: str) -> tuple[asyncio.subprocess.Process, Guarded]:
    port = free_port()
    guarded = Guarded(port, tmp_path / "guarded.log")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        str(port),
        "--log",
        str(guarded.log),
        *extra,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stderr is not None
    async with asyncio.timeout(20):  # uvicorn says so on stderr once its socket listens
        while b"Uvicorn running on" not in (line := await proc.stderr.readline()):
            assert line, "the guarded server exited before it listened"
    # Its request log goes on: drained, so that a full pipe never blocks it.
    guarded.drain = asyncio.create_task(proc.stderr.read())
    return proc, guarded


@pytest.fixture
async def guarded(tmp_path: Path) -> AsyncIterator[Guarded]:
    proc, server = await _start_guarded(tmp_path)
    yield server
    proc.kill()
    await proc.wait()


async def _browser(url: str) -> httpx.Response:
    """The user's browser: it opens the URL and follows the redirects back to the callback."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=30) as browser:
        return await browser.get(url)


async def _login(server: RpcClient, name: str, **extra: Any) -> tuple[int, dict[str, Any]]:
    mark = server.mark()
    return mark, await server.request("mcpServer/oauth/login", {"name": name, **extra})


async def _completed(server: RpcClient, mark: int) -> dict[str, Any]:
    msg = await server.notification("mcpServer/oauthLogin/completed", after=mark, within_s=30)
    return dict(msg["params"])


async def test_sign_in_then_the_model_calls_the_servers_tool_and_a_killed_daemon_keeps_it(
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    guarded: Guarded,
    workdir: Path,
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    server = await start_server(*guarded.config(), home=home)
    before = await wait_status(server, "guarded", "failed")
    assert before["authStatus"] == "notLoggedIn" and before["tools"] == {}, before["toolsError"]

    mark, answer = await _login(server, "guarded")
    url = urlsplit(answer["authorizationUrl"])
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"http://127.0.0.1:{guarded.port}/authorize"
    assert query["response_type"] == "code" and query["code_challenge_method"] == "S256"
    assert query["resource"] == guarded.url and query["state"] and query["client_id"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/callback/[A-Za-z0-9_-]+", query["redirect_uri"])
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", answer["loginId"])

    page = await _browser(answer["authorizationUrl"])
    assert (page.status_code, page.text) == (200, DONE_PAGE)
    done = await _completed(server, mark)
    assert done == {"name": "guarded", "threadId": None, "loginId": answer["loginId"], "success": True}
    after = await wait_status(server, "guarded", "connected", after=mark)
    assert after["authStatus"] == "oAuth" and "secret_word" in after["tools"]

    store = home / "mcp_oauth.json"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    (entry,) = json.loads(store.read_text()).values()
    token = entry["tokens"]["access_token"]
    assert token not in server.stderr()

    fake_model.add(
        script.reply(script.function_call("mcp__guarded__secret_word", {}, "call_1")),
        script.text_reply("The word is swordfish."),
    )
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    await run_turn(server, thread["thread"]["id"], "what is the secret word?")
    outputs = [i for i in fake_model.requests[-1].body["input"] if i.get("call_id") == "call_1"]
    assert any("swordfish" in str(o.get("output")) for o in outputs if o["type"] == "function_call_output")

    # SIGKILL, not a shutdown: the sign-in was on disk once its notification went out.
    server.kill()
    await server.close(check=False)
    again = await start_server(*guarded.config(), home=home)
    restarted = await wait_status(again, "guarded", "connected")
    assert restarted["authStatus"] == "oAuth" and "secret_word" in restarted["tools"]
    assert [e for e in guarded.events() if e.startswith(("register", "authorize"))] == [
        f"register [AnyUrl('{query['redirect_uri']}')]",
        f"authorize {query['redirect_uri']}",
    ]


async def test_an_expired_token_is_refreshed_when_the_server_connects(
    start_server: StartServer, tmp_path: Path
) -> None:
    # The server's tokens say they expire at once: the reconnection after the sign-in refreshes.
    proc, guarded = await _start_guarded(tmp_path, "--expires-in", "0")
    try:
        server = await start_server(*guarded.config())
        await wait_status(server, "guarded", "failed")
        mark, answer = await _login(server, "guarded")
        await _browser(answer["authorizationUrl"])
        assert (await _completed(server, mark))["success"] is True
        after = await wait_status(server, "guarded", "connected", after=mark)
        assert after["authStatus"] == "oAuth"
        assert guarded.events().count("token refresh") >= 1
    finally:
        proc.kill()
        await proc.wait()


async def test_no_browser_in_time_fails_the_login_and_changes_nothing(
    start_server: StartServer, guarded: Guarded, tmp_path: Path
) -> None:
    server = await start_server(*guarded.config())
    await wait_status(server, "guarded", "failed")
    mark, answer = await _login(server, "guarded", timeoutSecs=0)
    done = await _completed(server, mark)
    assert done == {
        "name": "guarded",
        "threadId": None,
        "loginId": answer["loginId"],
        "success": False,
        "error": "timed out waiting for OAuth callback",
    }
    assert (await status_of(server, "guarded"))["authStatus"] == "notLoggedIn"
    assert (
        not (tmp_path / "home" / "mcp_oauth.json").exists()
        or "tokens" not in (tmp_path / "home" / "mcp_oauth.json").read_text()
    )


async def test_servers_that_cannot_sign_in_are_refused(start_server: StartServer, tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/mcp"
    server = await start_server(
        "-c", f"mcp_servers.dead.url={json.dumps(dead)}", "-c", 'mcp_servers.local.command="/bin/true"'
    )
    await wait_status(server, "dead", "failed")
    assert (await status_of(server, "dead"))["authStatus"] == "unknown"
    for name, code, prefix in [
        ("nope", -32600, "No MCP server named 'nope' found."),
        ("local", -32600, "OAuth login is only supported for streamable HTTP servers."),
        ("dead", -32603, "failed to login to MCP server 'dead': "),
    ]:
        with pytest.raises(RpcErrorReply) as refused:
            await server.request("mcpServer/oauth/login", {"name": name})
        assert refused.value.code == code and refused.value.message.startswith(prefix)


async def test_forged_callbacks_are_refused_and_the_real_one_still_signs_in(
    start_server: StartServer, guarded: Guarded, tmp_path: Path
) -> None:
    server = await start_server(*guarded.config())
    await wait_status(server, "guarded", "failed")
    mark, answer = await _login(server, "guarded")
    query = {k: v[0] for k, v in parse_qs(urlsplit(answer["authorizationUrl"]).query).items()}
    callback = urlsplit(query["redirect_uri"])
    async with httpx.AsyncClient() as other:
        elsewhere = await other.get(f"http://{callback.netloc}/callback/guess?code=x&state={query['state']}")
        forged = await other.get(f"{query['redirect_uri']}?code=stolen&state=forged")
        no_state = await other.get(f"{query['redirect_uri']}?error=access_denied")
    assert (elsewhere.status_code, forged.status_code, no_state.status_code) == (404, 400, 400)
    assert not [m for m in server.since(mark) if m.get("method") == "mcpServer/oauthLogin/completed"]
    assert (await status_of(server, "guarded"))["authStatus"] == "notLoggedIn"

    page = await _browser(answer["authorizationUrl"])
    assert (page.status_code, page.text) == (200, DONE_PAGE)
    assert (await _completed(server, mark))["success"] is True
