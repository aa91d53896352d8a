"""What a ChatGPT account reads from its backend (`chatgpt_base_url`): rate limits, as Codex 0.169.0.

`account/rateLimits/read` with ChatGPT auth is `GET {chatgpt_base_url}/wham/usage` with the access
token and the workspace id; a failed read is Codex's -32603 "failed to fetch codex rate limits: GET
<url> failed: <status>; content-type=<type>; body=<body>". With `chatgptAuthTokens`, a 401 makes
Tether ask the app that supplied the tokens for fresh ones (`account/chatgptAuthTokens/refresh`,
reason `unauthorized`) and read once more with them; a browser sign-in's tokens are renewed at the
issuer with the stored refresh token instead. A model request refused with 401 renews the same way
(`renew_current`, called by the provider pool) and is sent once more.
"""

from __future__ import annotations

import asyncio
import datetime
import math
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tether_protocol.v2 import notifications as n
from tether_server.auth import CredentialStoreError
from tether_server.auth.chatgpt_login import RefreshError, refresh_tokens
from tether_server.errors import InternalError
from tether_server.processor.state import ServerState

if TYPE_CHECKING:  # httpx loads with the first backend request, not with the daemon
    import httpx

DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
REFRESH = "account/chatgptAuthTokens/refresh"
_TIMEOUT_S = 30.0
_REFRESH_WAIT_S = 30.0


_PLANS = frozenset(
    {
        "free", "go", "plus", "pro", "prolite", "promax", "team", "self_serve_business_prolite",
        "self_serve_business_usage_based", "business", "ent26", "enterprise_cbp_automation",
        "enterprise_cbp_usage_based", "enterprise", "edu", "edu_plus", "edu_pro", "sci", "sci_plus",
        "unknown",
    }
)  # fmt: skip


def plan_of(text: str | None) -> str:
    """A plan claim as the wire knows it; anything else is `unknown`, as Codex reports it."""
    return text if text in _PLANS else "unknown"


def base_url(state: ServerState) -> str:
    configured = state.config.config.chatgpt_base_url
    return (configured if isinstance(configured, str) and configured else DEFAULT_BASE_URL).rstrip("/")


async def _send(
    method: str,
    url: str,
    tokens: dict[str, str],
    what: str,
    body: dict[str, Any] | None,
    extra: dict[str, str],
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {tokens.get('access_token', '')}", **extra}
    if tokens.get("account_id"):
        headers["ChatGPT-Account-Id"] = tokens["account_id"]
    import httpx

    try:
        async with httpx.AsyncClient(timeout=_TIMEOUT_S) as client:
            return await client.request(method, url, headers=headers, json=body)
    except httpx.HTTPError:
        raise InternalError(f"failed to fetch {what}: error sending request for url ({url})") from None


def refused(what: str, method: str, url: str, response: httpx.Response) -> InternalError:
    """Codex's words for a backend answer other than 200."""
    try:
        reason = HTTPStatus(response.status_code).phrase
    except ValueError:
        reason = ""
    return InternalError(
        f"failed to fetch {what}: {method} {url} failed: {response.status_code} {reason}; "
        f"content-type={response.headers.get('content-type', '')}; body={response.text}"
    )


async def request(
    state: ServerState,
    tokens: dict[str, str],
    path: str,
    what: str,
    *,
    body: dict[str, Any] | None = None,
    extra: dict[str, str] | None = None,
) -> httpx.Response:
    """One backend request with the account's tokens (POST when it has a body), renewed once on 401.

    Raises:
        InternalError: the backend could not be reached (Codex's message naming `what`).
    """
    method = "GET" if body is None else "POST"
    url = f"{base_url(state)}{path}"
    response = await _send(method, url, tokens, what, body, extra or {})
    if response.status_code == 401:
        # Managed tokens are renewed with the refresh token; an app's are asked of the app.
        fresh = await _refresh(state, tokens) if "owner" in tokens else await refresh_stored(state, tokens)
        if fresh is not None:
            response = await _send(method, url, fresh, what, body, extra or {})
    return response


async def refresh_stored(state: ServerState, tokens: dict[str, str]) -> dict[str, str]:
    """Renew a browser sign-in's tokens at the issuer and store them.

    Raises:
        InternalError: the issuer would not renew them, or the store refused the write.
    """
    try:
        renewed = await refresh_tokens(state.config.config.tether.chatgpt_issuer, tokens)
        stamp = datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")
        await state.credentials.login_chatgpt(renewed, stamp)
    except (RefreshError, CredentialStoreError) as exc:
        raise InternalError(f"failed to refresh ChatGPT tokens: {exc}") from None
    return renewed


async def _refresh(state: ServerState, tokens: dict[str, str]) -> dict[str, str] | None:
    """Ask the app that supplied the tokens for fresh ones; None when it cannot or will not."""
    # The sign-in's wire models load with the first renewal, not with the daemon (issue 31).
    from tether_protocol.v2 import account as acct

    owner = next((c for c in state.connections() if str(c.id) == tokens.get("owner")), None)
    if owner is None or state.server_requests is None:
        return None
    params = acct.ChatgptAuthTokensRefreshParams(previous_account_id=tokens.get("account_id") or None)
    req = state.server_requests.create(REFRESH, params.wire())
    state.server_requests.send(req, [owner])
    try:
        reply = await asyncio.wait_for(asyncio.shield(req.future), _REFRESH_WAIT_S)
    except TimeoutError:
        return None
    finally:
        if not req.future.done():
            req.future.cancel()
    if reply.error is not None:
        return None
    try:
        fresh = acct.ChatgptAuthTokensRefreshResponse.model_validate(reply.result or {})
    except ValidationError:
        return None
    if state.credentials.external is not tokens:
        return None  # a logout or another sign-in came first: the answer is for an account gone
    updated = {
        "access_token": fresh.access_token,
        "account_id": fresh.chatgpt_account_id,
        "owner": tokens["owner"],
    }
    if fresh.chatgpt_plan_type:
        updated["plan_type"] = fresh.chatgpt_plan_type
    state.credentials.external = updated
    return updated


async def renew_current(state: ServerState) -> bool:
    """Renew the current ChatGPT sign-in's tokens after a model request got 401; False: not renewed."""
    tokens = state.credentials.chatgpt_tokens()
    if tokens is None:
        return False
    if "owner" in tokens:
        return await _refresh(state, tokens) is not None
    try:
        await refresh_stored(state, tokens)
    except InternalError:
        return False
    return True


def _window(raw: object) -> n.RateLimitWindow | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("used_percent"), int | float):
        return None
    seconds = raw.get("limit_window_seconds")
    reset_at = raw.get("reset_at")
    return n.RateLimitWindow(
        used_percent=int(raw["used_percent"]),
        window_duration_mins=math.ceil(seconds / 60) if isinstance(seconds, int | float) else None,
        resets_at=int(reset_at) if isinstance(reset_at, int | float) else None,
    )


def _snapshot(body: dict[str, Any], plan: str) -> n.RateLimitSnapshot:
    raw_limits = body.get("rate_limit")
    limits: dict[str, Any] = raw_limits if isinstance(raw_limits, dict) else {}
    credits = body.get("credits")
    wire_credits = None
    if isinstance(credits, dict) and isinstance(credits.get("has_credits"), bool):
        balance = credits.get("balance")
        wire_credits = {
            "hasCredits": credits["has_credits"],
            "unlimited": bool(credits.get("unlimited")),
            "balance": str(balance) if balance is not None else None,
        }
    return n.RateLimitSnapshot(
        limit_id="codex",
        primary=_window(limits.get("primary_window")),
        secondary=_window(limits.get("secondary_window")),
        credits=wire_credits,
        plan_type=plan,
    )


async def rate_limits(state: ServerState, tokens: dict[str, str]) -> dict[str, Any]:
    """The `rateLimits` snapshot of a ChatGPT account, from its backend.

    Raises:
        InternalError: the backend could not be reached or refused the read (Codex's message).
    """
    what = "codex rate limits"
    response = await request(state, tokens, "/wham/usage", what)
    url = f"{base_url(state)}/wham/usage"
    if response.status_code != 200:
        raise refused(what, "GET", url, response)
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise InternalError(f"failed to fetch codex rate limits: GET {url} answered no JSON object")
    plan = body.get("plan_type")
    return _snapshot(body, plan_of(plan if isinstance(plan, str) else None)).wire()
