"""ChatGPT browser sign-in as Codex does it: OAuth authorization code with PKCE and a loopback callback.

`BrowserLogin.start` listens on `127.0.0.1:<port>` (Codex's 1455 unless configured) and builds
the URL the user opens: `{issuer}/oauth/authorize` with Codex's client id, scopes and flags, an
S256 code challenge and a random state. The issuer's redirect to `/auth/callback?code=…&state=…`
is answered here: a wrong state gets 400 "State mismatch" and the sign-in keeps waiting; a
missing code or a failed token exchange ends it with Codex's error text. The code is exchanged
at `{issuer}/oauth/token` with the verifier; the tokens go to `on_done`, which stores them.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import secrets
import uuid
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from tether_server import log

_log = log.get(__name__)

DEFAULT_ISSUER = "https://auth.openai.com"
DEFAULT_PORT = 1455
CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
SCOPES = "openid profile email offline_access api.connectors.read api.connectors.invoke"
NOT_COMPLETED = "Login server error: Login was not completed"
MISSING_CODE = "Login server error: Missing authorization code. Sign-in could not be completed."
_AUTH_CLAIMS = "https://api.openai.com/auth"
_MAX_REQUEST = 16 * 1024
_READ_S = 10.0
_EXCHANGE_S = 30.0

Done = Callable[[str, "dict[str, str] | None", "str | None"], Awaitable[None]]
"""(login id, tokens or None, error or None): called once when the sign-in ends."""


def jwt_claims(token: str) -> dict[str, Any]:
    """The payload of a JWT, unverified (Codex does not verify it either); {} when unreadable."""
    parts = token.split(".")
    if len(parts) < 2:
        return {}
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        data = json.loads(base64.urlsafe_b64decode(payload))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def account_claims(id_token: str) -> tuple[str | None, str | None, str | None, str | None]:
    """(email, plan type, ChatGPT account id, ChatGPT user id) from an id_token's claims."""
    claims = jwt_claims(id_token)
    auth = claims.get(_AUTH_CLAIMS)
    auth = auth if isinstance(auth, dict) else {}

    def text(value: object) -> str | None:
        return value if isinstance(value, str) and value else None

    return (
        text(claims.get("email")),
        text(auth.get("chatgpt_plan_type")),
        text(auth.get("chatgpt_account_id")),
        text(auth.get("chatgpt_user_id")) or text(auth.get("user_id")),
    )


class RefreshError(Exception):
    """The issuer would not renew the tokens; the message says why."""


async def refresh_tokens(issuer: str, tokens: dict[str, str]) -> dict[str, str]:
    """Renew a browser sign-in's tokens with its refresh token at `{issuer}/oauth/token`.

    Returns the tokens with what the issuer renewed replaced (it may omit any of them).

    Raises:
        RefreshError: no refresh token, the issuer unreachable, or its refusal.
    """
    if not tokens.get("refresh_token"):
        raise RefreshError("no refresh token is stored; sign in again")
    url = f"{issuer.rstrip('/')}/oauth/token"
    body = {
        "client_id": CLIENT_ID,
        "grant_type": "refresh_token",
        "refresh_token": tokens["refresh_token"],
        "scope": "openid profile email",
    }
    import httpx  # with the first sign-in or renewal, not with the daemon

    try:
        async with httpx.AsyncClient(timeout=_EXCHANGE_S) as client:
            response = await client.post(url, json=body)
    except httpx.HTTPError:
        raise RefreshError(f"error sending request for url ({url})") from None
    if response.status_code != 200:
        raise RefreshError(f"the token endpoint answered {response.status_code}; sign in again")
    try:
        renewed = response.json()
    except ValueError:
        renewed = None
    if not isinstance(renewed, dict):
        raise RefreshError("the token endpoint's answer is not a JSON object")
    merged = dict(tokens)
    merged.update(
        {
            k: v
            for k, v in renewed.items()
            if k in ("id_token", "access_token", "refresh_token") and isinstance(v, str)
        }
    )
    return merged


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class BrowserLogin:
    """One pending browser sign-in: its loopback listener, PKCE verifier and state."""

    def __init__(self, issuer: str, port: int, originator: str, on_done: Done) -> None:
        self.login_id = str(uuid.uuid4())
        self.issuer = issuer.rstrip("/")
        self._port = port
        self._originator = originator
        self._on_done = on_done
        self._verifier = _b64(secrets.token_bytes(64))
        self._state = _b64(secrets.token_bytes(32))
        self._server: asyncio.Server | None = None
        self._finished = False
        self.redirect_uri = ""

    async def start(self) -> str:
        """Listen on loopback and return the URL to open.

        Raises:
            OSError: the port cannot be bound.
        """
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._port)
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_uri = f"http://127.0.0.1:{port}/auth/callback"
        challenge = _b64(hashlib.sha256(self._verifier.encode()).digest())
        fields = {
            "response_type": "code",
            "client_id": CLIENT_ID,
            "redirect_uri": self.redirect_uri,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": self._state,
            "scope": SCOPES,
            "id_token_add_organizations": "true",
            "codex_cli_simplified_flow": "true",
            "originator": self._originator,
        }
        # Codex encodes spaces as `+` and every other reserved character as %XX.
        query = "&".join(f"{k}={quote(v, safe='').replace('%20', '+')}" for k, v in fields.items())
        return f"{self.issuer}/oauth/authorize?{query}"

    async def cancel(self) -> None:
        """End the sign-in unfinished (a cancel, a new sign-in, or shutdown)."""
        await self._finish(None, NOT_COMPLETED)

    def close(self) -> None:
        """Stop listening without a word (the daemon is stopping; nobody is left to tell)."""
        self._finished = True
        if self._server is not None:
            self._server.close()

    async def _finish(self, tokens: dict[str, str] | None, error: str | None) -> None:
        if self._finished:
            return
        self._finished = True
        if self._server is not None:
            self._server.close()
        await self._on_done(self.login_id, tokens, error)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(_READ_S):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        if len(head) > _MAX_REQUEST:
            await _reply(writer, 431, "Request header fields too large")
            return
        parts = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        if len(parts) != 3 or parts[0] != "GET":
            await _reply(writer, 405, "Method not allowed")
            return
        target = urlsplit(parts[1])
        if target.path != "/auth/callback" or self._finished:
            await _reply(writer, 404, "Not found")
            return
        query = parse_qs(target.query)
        if query.get("state", [""])[0] != self._state:
            # Someone else's redirect (or a stale tab): refuse it and keep waiting for ours.
            await _reply(writer, 400, "State mismatch")
            return
        code = query.get("code", [""])[0]
        if not code:
            await _reply(writer, 200, _page("Sign-in could not be completed."), html=True)
            await self._finish(None, MISSING_CODE)
            return
        tokens, error = await self._exchange(code)
        page = "Signed in. You can close this window." if tokens else "Sign-in could not be completed."
        await _reply(writer, 200, _page(page), html=True)
        await self._finish(tokens, error)

    async def _exchange(self, code: str) -> tuple[dict[str, str] | None, str | None]:
        url = f"{self.issuer}/oauth/token"
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.redirect_uri,
            "client_id": CLIENT_ID,
            "code_verifier": self._verifier,
        }
        import httpx

        try:
            async with httpx.AsyncClient(timeout=_EXCHANGE_S) as client:
                response = await client.post(url, data=form)
        except httpx.HTTPError:
            return None, f"Login server error: Token exchange failed: error sending request for url ({url})"
        if response.status_code != 200:
            return (
                None,
                "Login server error: Token exchange failed: "
                f"token endpoint returned status {response.status_code}",
            )
        try:
            body = response.json()
        except ValueError:
            body = None
        fields = ("id_token", "access_token", "refresh_token")
        if not isinstance(body, dict) or not all(isinstance(body.get(k), str) for k in fields):
            return (
                None,
                "Login server error: Token exchange failed: the token endpoint's answer has no tokens",
            )
        tokens = {k: str(body[k]) for k in fields}
        account_id = account_claims(tokens["id_token"])[2]
        if account_id:
            tokens["account_id"] = account_id
        _log.info("auth.chatgpt_tokens_received", login_id=self.login_id)
        return tokens, None


def _page(message: str) -> str:
    return (
        f"<!doctype html><html><head><title>Tether sign-in</title></head><body><p>{message}</p></body></html>"
    )


async def _reply(writer: asyncio.StreamWriter, status: int, body: str, *, html: bool = False) -> None:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}.get(status, "Error")
    kind = "text/html; charset=utf-8" if html else "text/plain; charset=utf-8"
    data = body.encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    )
    with contextlib.suppress(ConnectionError):
        writer.write(head.encode() + data)
        await writer.drain()
    writer.close()
