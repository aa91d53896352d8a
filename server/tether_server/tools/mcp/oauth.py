"""OAuth tokens of streamable-HTTP MCP servers: kept in `$TETHER_HOME/mcp_oauth.json` (0600), used
by the connection to that server, refreshed by the `mcp` SDK's OAuth client when they expire.

An entry is keyed by the server's name and URL, so a server pointed elsewhere is not handed another
server's tokens. Token values never reach a log or a wire answer: only "signed in or not" leaves.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any, Literal

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from tether_server.private_file import write_atomic
from tether_server.tools.mcp.config import OAUTH_STORE_FILE, ServerConfig

STORE_FILE = OAUTH_STORE_FILE
CLIENT_NAME = "Tether"
_LOCK = threading.Lock()
UNREACHABLE = "All connection attempts failed"  # httpx2's words when nothing listens


class NotSignedIn(Exception):
    """The server wants a fresh sign-in: only `mcpServer/oauth/login` can start one."""


def entry_key(name: str, url: str) -> str:
    return f"{name}|{hashlib.sha256(url.encode()).hexdigest()[:16]}"


class TokenStore:
    """The tokens file: small, rewritten whole and atomically at each change."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _all(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, name: str, url: str) -> dict[str, Any]:
        found = self._all().get(entry_key(name, url))
        return found if isinstance(found, dict) else {}

    def update(self, name: str, url: str, **fields: Any) -> None:
        with _LOCK:
            data = self._all()
            key = entry_key(name, url)
            found = data.get(key)
            entry = found if isinstance(found, dict) else {}
            data[key] = {**entry, "server_name": name, "server_url": url, **fields}
            write_atomic(self.path, json.dumps(data, indent=2), 0o600)

    def signed_in(self, name: str, url: str) -> bool:
        return "tokens" in self.get(name, url)


class StoredTokens:
    """The SDK's `TokenStorage` over one entry of the file; the expiry is kept as a date so a
    restarted daemon knows whether the access token still holds."""

    def __init__(self, store: TokenStore, name: str, url: str) -> None:
        self._store, self._name, self._url = store, name, url

    def expires_at(self) -> float | None:
        value = self._store.get(self._name, self._url).get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    async def get_tokens(self) -> OAuthToken | None:
        raw = self._store.get(self._name, self._url).get("tokens")
        return OAuthToken.model_validate(raw) if isinstance(raw, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        self._store.update(self._name, self._url, tokens=tokens.model_dump(mode="json"), expires_at=expires)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = self._store.get(self._name, self._url).get("client")
        return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._store.update(
            self._name, self._url, client=client_info.model_dump(mode="json", exclude_none=True)
        )


class _Provider(OAuthClientProvider):
    """The SDK client, told when the stored access token expires (it only learns that from a token
    answer it received itself), so a token that lapsed while the daemon was down is refreshed."""

    def __init__(self, storage: StoredTokens, **kw: Any) -> None:
        super().__init__(storage=storage, **kw)
        self._stored = storage

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = self._stored.expires_at()


def client_metadata(redirect_uri: str, scopes: list[str] | None) -> OAuthClientMetadata:
    return OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[redirect_uri],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=" ".join(scopes) if scopes else None,
    )


def provider(storage: StoredTokens, url: str, metadata: OAuthClientMetadata, **handlers: Any) -> httpx2.Auth:
    return _Provider(storage, server_url=url, client_metadata=metadata, **handlers)


async def _no_browser(*_args: object) -> AuthorizationCodeResult:
    raise NotSignedIn("the MCP server needs a new OAuth login (mcpServer/oauth/login)")


_CHALLENGED: set[str] = set()
"""The HTTP servers (name|url) whose last answer was a 401 with a Bearer challenge: they want a
sign-in. The connection's own error only says the server "returned an error response"."""


class _Challenge(httpx2.Auth):
    """No credentials; notes whether the server asks for a bearer token."""

    def __init__(self, key: str) -> None:
        self._key = key

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        response = yield request
        if response.status_code == 401 and "bearer" in response.headers.get("www-authenticate", "").lower():
            _CHALLENGED.add(self._key)
        elif response.status_code < 400:
            _CHALLENGED.discard(self._key)


def connection_auth(cfg: ServerConfig) -> httpx2.Auth | None:
    """The auth of a connection to an HTTP server: its stored OAuth tokens, refreshed when they
    expire (none when it sends a bearer token of its own). A connection never opens a browser: if
    the tokens are refused and cannot be refreshed, it fails, and the status says it needs a sign-in."""
    store_path, name, url = cfg.oauth_store, cfg.name, cfg.url
    if url is None or cfg.bearer_token_env_var:
        return None
    if store_path is None:
        return _Challenge(entry_key(name, url))
    store = TokenStore(Path(store_path))
    entry = store.get(name, url)
    client = entry.get("client")
    if "tokens" not in entry or not isinstance(client, dict):
        return _Challenge(entry_key(name, url))
    uris = client.get("redirect_uris") or ["http://127.0.0.1/callback"]
    storage = StoredTokens(store, name, url)
    return provider(
        storage,
        url,
        client_metadata(str(uris[0]), None),
        redirect_handler=_no_browser,
        callback_handler=_no_browser,
    )


def auth_status(
    store_path: str | None, name: str, url: str, error: str | None
) -> Literal["oAuth", "notLoggedIn", "unsupported", "unknown"]:
    """`authStatus` of an HTTP server, as Codex reports it: signed in; asked for a sign-in; could
    not be asked (unreachable); or needs none."""
    if store_path is not None and TokenStore(Path(store_path)).signed_in(name, url):
        return "oAuth"
    if entry_key(name, url) in _CHALLENGED:
        return "notLoggedIn"
    if error is not None and UNREACHABLE in error:
        return "unknown"
    return "unsupported"
