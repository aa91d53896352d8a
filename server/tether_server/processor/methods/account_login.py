"""ChatGPT sign-in over `account/login/start`, `account/login/cancel` and `account/read`, as Codex 0.169.0.

- `chatgpt`: a browser sign-in (`auth.chatgpt_login`); the answer carries `loginId` and `authUrl`,
  and when the redirect comes back `account/login/completed` (then, on success, `account/updated`
  with `authMode: "chatgpt"` and the plan) goes to every client. The tokens are stored as API keys
  are (auth.json 0600 in Codex's layout, or the keyring). A new sign-in ends the pending one.
- `chatgptDeviceCode`: the same, with a code the user enters at the issuer instead of a redirect.
- `chatgptAuthTokens`: the app supplies an access token (a JWT) and workspace id; they stay in
  memory. When the ChatGPT backend refuses them, Tether asks that app for fresh ones with the
  `account/chatgptAuthTokens/refresh` server request.
"""

from __future__ import annotations

import datetime

from tether_protocol import server_methods as sm
from tether_protocol.v2 import account as acct
from tether_protocol.v2 import account_limits as al
from tether_server.auth import CredentialStoreError
from tether_server.auth.chatgpt_login import BrowserLogin, Done, account_claims, jwt_claims
from tether_server.auth.device_code import DeviceCodeError, DeviceCodeLogin
from tether_server.errors import InternalError, InvalidRequest
from tether_server.processor.chatgpt_backend import plan_of
from tether_server.processor.state import ServerState
from tether_server.processor.uuid_text import uuid_error
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification

INVALID_TOKEN = "failed to set external auth: invalid ID token format"


def chatgpt_account(state: ServerState) -> tuple[acct.ChatgptAccount, str | None] | None:
    """The signed-in ChatGPT account and its user id, from the tokens' claims; None when not signed in."""
    tokens = state.credentials.chatgpt_tokens()
    if tokens is None:
        return None
    email, plan, _, user_id = account_claims(tokens.get("id_token") or tokens.get("access_token", ""))
    plan = tokens.get("plan_type") or plan
    return acct.ChatgptAccount(email=email, plan_type=plan_of(plan)), user_id


def auth_mode(state: ServerState) -> str | None:
    """`chatgptAuthTokens`, `chatgpt`, or None when no ChatGPT sign-in is in use."""
    if state.credentials.external is not None:
        return "chatgptAuthTokens"
    return "chatgpt" if state.credentials.chatgpt_tokens() is not None else None


def announce(state: ServerState) -> None:
    """`account/updated` for a ChatGPT account now in use."""
    found = chatgpt_account(state)
    mode = auth_mode(state)
    if found is None or mode not in ("chatgpt", "chatgptAuthTokens"):
        return
    update = acct.AccountUpdatedNotification(auth_mode=mode, plan_type=found[0].plan_type)
    send_notification(state.connections(), sm.ACCOUNT_UPDATED, update)


def _when_done(state: ServerState) -> Done:
    async def done(login_id: str, tokens: dict[str, str] | None, error: str | None) -> None:
        if state.chatgpt_login is not None and state.chatgpt_login.login_id == login_id:
            state.chatgpt_login = None
        if tokens is not None:
            stamp = datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")
            try:
                await state.credentials.login_chatgpt(tokens, stamp)
            except CredentialStoreError as exc:
                tokens, error = None, f"Login server error: cannot store the tokens: {exc}"
        completed = acct.AccountLoginCompletedNotification(
            login_id=login_id, success=tokens is not None, error=error
        )
        send_notification(state.connections(), sm.ACCOUNT_LOGIN_COMPLETED, completed)
        if tokens is not None:
            announce(state)

    return done


async def _end_pending(state: ServerState) -> None:
    # One sign-in at a time, as Codex: a new one ends the pending one (its login/completed says so).
    previous, state.chatgpt_login = state.chatgpt_login, None
    if previous is not None:
        await previous.cancel()


async def browser_start(state: ServerState, ctx: RequestContext) -> acct.LoginAccountResponse:
    """Listen for the redirect and answer with the URL to open."""
    settings = state.config.config.tether
    await _end_pending(state)
    originator = state.originator or "codex_cli_rs"
    login = BrowserLogin(settings.chatgpt_issuer, settings.chatgpt_login_port, originator, _when_done(state))
    try:
        auth_url = await login.start()
    except OSError as exc:
        raise InternalError(f"failed to start login server: {exc.strerror or exc}") from None
    state.chatgpt_login = login
    return acct.LoginAccountResponse(type="chatgpt", login_id=login.login_id, auth_url=auth_url)


async def device_start(state: ServerState, ctx: RequestContext) -> acct.LoginAccountResponse:
    """Get a code from the issuer and answer with it; the sign-in completes when the user enters it."""
    await _end_pending(state)
    login = DeviceCodeLogin(state.config.config.tether.chatgpt_issuer, _when_done(state))
    try:
        await login.start()
    except DeviceCodeError as exc:
        raise InternalError(str(exc)) from None
    state.chatgpt_login = login
    return acct.LoginAccountResponse(
        type="chatgptDeviceCode",
        login_id=login.login_id,
        user_code=login.user_code,
        verification_url=login.verification_url,
    )


async def tokens_start(
    state: ServerState, ctx: RequestContext, params: acct.LoginAccountParams
) -> acct.LoginAccountResponse:
    """Take the app's tokens (memory only); a token that is not a JWT is Codex's -32603."""
    for name, value in (
        ("accessToken", params.access_token),
        ("chatgptAccountId", params.chatgpt_account_id),
    ):
        if value is None:
            raise InvalidRequest(f"Invalid request: missing field `{name}`")
    token = params.access_token or ""
    if not jwt_claims(token):
        raise InternalError(INVALID_TOKEN)
    # The connection that supplied them is the one asked for fresh ones.
    external = {
        "access_token": token,
        "account_id": params.chatgpt_account_id or "",
        "owner": str(ctx.connection.id),
    }
    if params.chatgpt_plan_type:
        external["plan_type"] = params.chatgpt_plan_type
    state.credentials.external = external

    def after() -> None:
        completed = acct.AccountLoginCompletedNotification(login_id=None, success=True)
        send_notification(state.connections(), sm.ACCOUNT_LOGIN_COMPLETED, completed)
        announce(state)

    ctx.after_response(after)
    return acct.LoginAccountResponse(type="chatgptAuthTokens")


async def login_cancel(
    state: ServerState, ctx: RequestContext, params: al.CancelLoginAccountParams
) -> al.CancelLoginAccountResponse:
    """`canceled` for the pending browser sign-in (its `login/completed` follows), else `notFound`."""
    if uuid_error(params.login_id) is not None:
        raise InvalidRequest(f"invalid login id: {params.login_id}")
    pending = state.chatgpt_login
    if pending is None or pending.login_id != params.login_id:
        return al.CancelLoginAccountResponse(status="notFound")
    state.chatgpt_login = None
    ctx.after_response(pending.cancel)
    return al.CancelLoginAccountResponse(status="canceled")
