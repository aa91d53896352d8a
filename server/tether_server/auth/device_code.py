"""ChatGPT device-code sign-in, on the endpoints Codex 0.169.0 uses.

`start` asks `{issuer}/api/accounts/deviceauth/usercode` for a code (Codex's client id); the user
enters it at `{issuer}/codex/device`. A task then polls `{issuer}/api/accounts/deviceauth/token`
(403/404: not yet) until it gets an authorization code with its PKCE pair, which is exchanged at
`{issuer}/oauth/token` with the redirect URI `{issuer}/deviceauth/callback`. Unreachable at start:
Codex's -32603 "failed to request device code: error sending request for url (<url>)".
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import TYPE_CHECKING

from tether_server.auth.chatgpt_login import CLIENT_ID, NOT_COMPLETED, Done, account_claims

if TYPE_CHECKING:  # httpx loads with the first device-code sign-in, not with the daemon
    import httpx

_TIMEOUT_S = 30.0
_MAX_WAIT_S = 15 * 60.0  # the code's lifetime at the issuer; then the sign-in ends unfinished
_PENDING = (403, 404)


class DeviceCodeError(Exception):
    """The issuer did not hand out a code; the message is Codex's."""


class DeviceCodeLogin:
    """One pending device-code sign-in: the code shown to the user and the task polling for it."""

    def __init__(self, issuer: str, on_done: Done) -> None:
        self.login_id = str(uuid.uuid4())
        self.issuer = issuer.rstrip("/")
        self._on_done = on_done
        self._task: asyncio.Task[None] | None = None
        self._finished = False
        self.user_code = ""
        self.verification_url = f"{self.issuer}/codex/device"

    async def start(self) -> None:
        """Ask for a code and start polling.

        Raises:
            DeviceCodeError: the issuer could not be reached or gave no code.
        """
        import httpx

        url = f"{self.issuer}/api/accounts/deviceauth/usercode"
        try:
            async with httpx.AsyncClient(timeout=_TIMEOUT_S) as client:
                response = await client.post(url, json={"client_id": CLIENT_ID})
        except httpx.HTTPError:
            raise DeviceCodeError(
                f"failed to request device code: error sending request for url ({url})"
            ) from None
        body = _json(response) if response.status_code == 200 else {}
        device_id, code = body.get("device_auth_id"), body.get("user_code") or body.get("usercode")
        if not isinstance(device_id, str) or not isinstance(code, str):
            raise DeviceCodeError(f"failed to request device code: {url} answered {response.status_code}")
        try:
            wait = float(str(body.get("interval", 5)))
        except ValueError:
            wait = 5.0
        self.user_code = code
        self._task = asyncio.create_task(self._poll(device_id, code, max(0.05, min(wait, 30.0))))

    async def cancel(self) -> None:
        """End the sign-in unfinished."""
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        await self._finish(None, NOT_COMPLETED)

    def close(self) -> None:
        """Stop polling without a word (the daemon is stopping)."""
        self._finished = True
        if self._task is not None:
            self._task.cancel()

    async def _finish(self, tokens: dict[str, str] | None, error: str | None) -> None:
        if self._finished:
            return
        self._finished = True
        await self._on_done(self.login_id, tokens, error)

    async def _poll(self, device_id: str, code: str, interval_s: float) -> None:
        import httpx

        url = f"{self.issuer}/api/accounts/deviceauth/token"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _MAX_WAIT_S
        async with httpx.AsyncClient(timeout=_TIMEOUT_S) as client:
            while loop.time() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    response = await client.post(url, json={"device_auth_id": device_id, "user_code": code})
                    if response.status_code == 200:
                        await self._exchange(client, _json(response))
                        return
                    if response.status_code not in _PENDING:
                        status = response.status_code
                        await self._finish(
                            None, f"Login server error: device authorization failed ({status})"
                        )
                        return
                await asyncio.sleep(interval_s)
        await self._finish(None, "Login server error: device code expired")

    async def _exchange(self, client: httpx.AsyncClient, grant: dict[str, object]) -> None:
        code, verifier = grant.get("authorization_code"), grant.get("code_verifier")
        if not isinstance(code, str) or not isinstance(verifier, str):
            await self._finish(None, "Login server error: device authorization answered no code")
            return
        url = f"{self.issuer}/oauth/token"
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": f"{self.issuer}/deviceauth/callback",
            "client_id": CLIENT_ID,
            "code_verifier": verifier,
        }
        import httpx

        try:
            response = await client.post(url, data=form)
        except httpx.HTTPError:
            failed = f"error sending request for url ({url})"
            await self._finish(None, f"Login server error: Token exchange failed: {failed}")
            return
        body = _json(response) if response.status_code == 200 else {}
        fields = ("id_token", "access_token", "refresh_token")
        if not all(isinstance(body.get(k), str) for k in fields):
            failed = f"token endpoint returned status {response.status_code}"
            await self._finish(None, f"Login server error: Token exchange failed: {failed}")
            return
        tokens = {k: str(body[k]) for k in fields}
        account_id = account_claims(tokens["id_token"])[2]
        if account_id:
            tokens["account_id"] = account_id
        await self._finish(tokens, None)


def _json(response: httpx.Response) -> dict[str, object]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
