"""One OAuth sign-in to a streamable-HTTP MCP server, as Codex does it: dynamic client registration
and a PKCE authorization against the authorization server the MCP server advertises, the browser
sent back to a one-time loopback listener (`http://127.0.0.1:<port>/callback/<random>`).

The SDK's OAuth client drives the protocol; this module gives it the redirect URI, hands the
authorization URL to the caller, and waits for the browser to come back.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth.exceptions import OAuthFlowError
from mcp.shared.auth import AuthorizationCodeResult

from tether_server.tools.mcp import http_bound
from tether_server.tools.mcp.oauth import StoredTokens, TokenStore, client_metadata, provider

DONE_PAGE = "Authentication complete. You may close this window."
MAX_REQUEST_BYTES = 16 * 1024
# The request that makes the server ask for a sign-in; its answer once signed in does not matter.
_PROBE = {"jsonrpc": "2.0", "id": 0, "method": "ping"}


class LoginFailed(Exception):
    """The sign-in could not start or did not finish; the message says why."""


@dataclass
class _Callback:
    """The loopback listener: the first request on its secret path ends the wait."""

    path: str
    result: asyncio.Future[AuthorizationCodeResult] = field(default_factory=asyncio.Future)
    state: str | None = None  # the authorization request's; a callback without it is someone else's

    def _answer(self, path: str, query: dict[str, str]) -> tuple[str, str]:
        if path != self.path or self.result.done():
            return "404 Not Found", "Not found"
        if self.state is None or query.get("state") != self.state:
            # Refused without ending the sign-in: a forged callback can neither finish nor cancel it.
            return "400 Bad Request", "State mismatch"
        if "code" in query:
            code = AuthorizationCodeResult(code=query["code"], state=query["state"], iss=query.get("iss"))
            self.result.set_result(code)
            return "200 OK", DONE_PAGE
        why = query.get("error_description") or query.get("error") or "no authorization code"
        self.result.set_exception(LoginFailed(f"OAuth authorization failed: {why}"))
        return "400 Bad Request", f"Authentication failed: {why}"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(30):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            writer.close()
            return
        parts = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        target = urlsplit(parts[1] if len(parts) == 3 else "")
        query = {k: v[0] for k, v in parse_qs(target.query).items()}
        status, body = self._answer(target.path, query)
        data = body.encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
            + data
        )
        with contextlib.suppress(OSError):
            await writer.drain()
        writer.close()


@dataclass
class Login:
    """A sign-in under way: its authorization URL, and `finished` (None, or why it failed)."""

    authorization_url: str
    finished: asyncio.Task[str | None]


async def start(
    store_path: Path,
    name: str,
    url: str,
    headers: dict[str, str],
    scopes: list[str] | None,
    timeout_s: float,
) -> Login:
    """Register (if needed) and build the authorization URL; the rest runs in `finished`.

    Raises:
        LoginFailed: the server advertises no way to sign in, or could not be reached.
    """
    callback = _Callback(path=f"/callback/{secrets.token_urlsafe(9)}")
    listener = await asyncio.start_server(callback.serve, "127.0.0.1", 0, limit=MAX_REQUEST_BYTES)
    port = listener.sockets[0].getsockname()[1]
    redirect_uri = f"http://127.0.0.1:{port}{callback.path}"
    shown: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def show(authorization_url: str) -> None:
        callback.state = parse_qs(urlsplit(authorization_url).query).get("state", [None])[0]
        shown.set_result(authorization_url)

    async def come_back() -> AuthorizationCodeResult:
        return await callback.result

    storage = StoredTokens(TokenStore(store_path), name, url)
    auth = provider(
        storage, url, client_metadata(redirect_uri, scopes), redirect_handler=show, callback_handler=come_back
    )
    finished = asyncio.create_task(_run(auth, url, headers, listener, timeout_s), name=f"mcp-oauth:{name}")
    waiters: list[asyncio.Future[str] | asyncio.Future[str | None]] = [shown, finished]
    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    if shown.done():
        return Login(shown.result(), finished)
    why = finished.result() or "the server did not ask for a sign-in"
    raise LoginFailed(why)


async def _run(
    auth: httpx2.Auth, url: str, headers: dict[str, str], listener: asyncio.Server, timeout_s: float
) -> str | None:
    """The whole exchange; None once the tokens are stored, else why not."""
    client = httpx2.AsyncClient(
        auth=auth,
        headers={**headers, **http_bound.IDENTITY, "Accept": "application/json, text/event-stream"},
        timeout=httpx2.Timeout(30.0),
    )
    try:
        async with client, asyncio.timeout(timeout_s):
            response = await client.post(url, json=_PROBE)
            if response.status_code in (401, 403):
                return f"the server refused the new token (HTTP {response.status_code})"
            return None
    except TimeoutError:
        return "timed out waiting for OAuth callback"
    except LoginFailed as exc:
        return str(exc)
    except (OAuthFlowError, httpx2.HTTPError, OSError, ValueError) as exc:
        # The SDK's flow errors, the network, and metadata or tokens it could not parse
        # (pydantic's ValidationError is a ValueError): each is the login's failure.
        return str(exc) or type(exc).__name__
    finally:
        listener.close()
