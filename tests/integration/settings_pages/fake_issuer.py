"""A fake OAuth issuer and ChatGPT backend on loopback, for the ChatGPT sign-in tests.

The issuer's `/oauth/token` does what a real one checks: the code it issued, Codex's client id,
the redirect URI, and the PKCE verifier against the challenge the authorize URL carried. The
backend's `/backend-api/wham/...` routes answer what the test put in `routes` (rate limits in
`usage`) to the access tokens it was told to accept and 401 to any other; `backend_requests` logs
each (method, path, headers, JSON body).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.server
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"


def jwt(claims: dict[str, Any]) -> str:
    """An unsigned JWT carrying `claims` (Codex reads the claims, it does not verify them)."""

    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


def id_token(email: str = "ada@example.com", plan: str = "pro", account: str = "acc-1") -> str:
    auth = {"chatgpt_plan_type": plan, "chatgpt_account_id": account, "chatgpt_user_id": "user-1"}
    return jwt({"email": email, "exp": int(time.time()) + 3600, "https://api.openai.com/auth": auth})


@dataclass
class FakeIssuer:
    base_url: str = ""
    code: str = "code-123"
    challenge: str = ""  # set by the test from the authorize URL
    redirect_uri: str = ""
    token_requests: list[dict[str, str]] = field(default_factory=list)
    accepted_tokens: set[str] = field(default_factory=set)
    usage_auth: list[tuple[str, str]] = field(default_factory=list)  # (authorization, account id)
    usage: dict[str, Any] = field(default_factory=dict)
    routes: dict[str, tuple[int, Any]] = field(default_factory=dict)  # backend path -> (status, JSON)
    backend_requests: list[tuple[str, str, dict[str, str], Any]] = field(default_factory=list)
    refresh_requests: list[dict[str, Any]] = field(default_factory=list)
    device_approved: bool = False  # the user entered the code at the issuer
    device_polls: int = 0
    _device_verifier: str = "device-verifier-0123456789"

    def device_code(self) -> dict[str, Any]:
        return {"device_auth_id": "dev-1", "user_code": "ABCD-EFGH", "interval": "0"}

    def device_token(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.device_polls += 1
        if body != {"device_auth_id": "dev-1", "user_code": "ABCD-EFGH"}:
            return 400, {"error": "unknown device"}
        if not self.device_approved:
            return 403, {"error": "authorization_pending"}
        verifier = self._device_verifier
        self.challenge = _s256(verifier)
        self.redirect_uri = f"{self.base_url}/deviceauth/callback"
        return 200, {
            "authorization_code": self.code,
            "code_challenge": self.challenge,
            "code_verifier": verifier,
        }

    def learn(self, auth_url: str) -> dict[str, str]:
        """Read what the authorize URL asks for, as the issuer's login page would."""
        query = {k: v[0] for k, v in parse_qs(urlsplit(auth_url).query).items()}
        self.challenge, self.redirect_uri = query["code_challenge"], query["redirect_uri"]
        return query

    def token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        self.token_requests.append(form)
        digest = _s256(form.get("code_verifier", ""))
        valid = (
            form.get("grant_type") == "authorization_code"
            and form.get("code") == self.code
            and form.get("client_id") == CLIENT_ID
            and form.get("redirect_uri") == self.redirect_uri
            and digest == self.challenge
        )
        if not valid:
            return 400, {"error": "invalid_grant"}
        return 200, {"id_token": id_token(), "access_token": "access-1", "refresh_token": "refresh-1"}


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _renew(fake: FakeIssuer, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A refresh grant: the refresh token it handed out buys a new access and refresh token."""
    fake.refresh_requests.append(body)
    if body.get("client_id") != CLIENT_ID or body.get("grant_type") != "refresh_token":
        return 400, {"error": "invalid_request"}
    if body.get("refresh_token") != "refresh-1":
        return 401, {"error": "invalid_grant"}
    return 200, {"access_token": "access-2", "refresh_token": "refresh-2"}


class _Handler(http.server.BaseHTTPRequestHandler):
    fake: FakeIssuer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _backend(self, raw: str) -> bool:
        """Answer a `/backend-api/wham/...` route other than rate limits, if the test set one."""
        path = urlsplit(self.path).path.removeprefix("/backend-api")
        if path not in self.fake.routes:
            return False
        body = json.loads(raw) if raw else None
        self.fake.backend_requests.append((self.command, path, dict(self.headers), body))
        if self.headers.get("Authorization", "").removeprefix("Bearer ") not in self.fake.accepted_tokens:
            self._send(401, {"detail": "token expired"})
        else:
            self._send(*self.fake.routes[path])
        return True

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode()
        if self._backend(raw):
            return
        if self.path == "/api/accounts/deviceauth/usercode":
            self._send(200, self.fake.device_code())
            return
        if self.path == "/api/accounts/deviceauth/token":
            self._send(*self.fake.device_token(json.loads(raw)))
            return
        if self.path == "/oauth/token" and self.headers.get("Content-Type", "").startswith(
            "application/json"
        ):
            self._send(*_renew(self.fake, json.loads(raw)))
            return
        form = {k: v[0] for k, v in parse_qs(raw).items()}
        if self.path != "/oauth/token":
            self._send(404, {})
            return
        self._send(*self.fake.token(form))

    def do_GET(self) -> None:
        if self._backend(""):
            return
        if urlsplit(self.path).path != "/backend-api/wham/usage":
            self._send(404, {})
            return
        auth = self.headers.get("Authorization", "")
        self.fake.usage_auth.append((auth, self.headers.get("ChatGPT-Account-Id", "")))
        if auth.removeprefix("Bearer ") not in self.fake.accepted_tokens:
            self._send(401, {"detail": "token expired"})
            return
        self._send(200, self.fake.usage)


@contextlib.contextmanager
def serve() -> Iterator[FakeIssuer]:
    fake = FakeIssuer()
    handler = type("Handler", (_Handler,), {"fake": fake})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    fake.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield fake
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
