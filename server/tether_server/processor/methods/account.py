"""account/read, account/login/start, account/logout: the API key the daemon talks to the model with.

A key given by `account/login/start` (or `tether login`) is stored as `cli_auth_credentials_store`
says and used for OpenAI-authenticated providers whose variable is unset; every connected client
hears `account/updated` when it changes. ChatGPT sign-in lives in `account_login`.
"""

from __future__ import annotations

import os

from tether_protocol import server_methods as sm
from tether_protocol.common import EmptyParams, EmptyResult
from tether_protocol.v2 import account as acct
from tether_protocol.v2 import workspace as ws
from tether_server.auth import CredentialStoreError
from tether_server.config import resolve_api_key
from tether_server.errors import ConfigError, InternalError, InvalidParams, InvalidRequest
from tether_server.processor import chatgpt_backend
from tether_server.processor.methods import account_login
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification

UNSUPPORTED_LOGIN = (
    "{kind} sign-in is not supported by Tether. Sign in with ChatGPT in a browser "
    '({{"type": "chatgpt"}}), send account/login/start with {{"type": "apiKey", "apiKey": "sk-..."}}, '
    "or run `printenv OPENAI_API_KEY | tether login --with-api-key`"
)
_KINDS = {
    "amazonBedrock": "Amazon Bedrock",
    "amazonBedrockAccessKeys": "Amazon Bedrock",
}


def has_key(state: ServerState) -> bool:
    """Whether the selected provider has a key now (environment, config or stored)."""
    cfg = state.config.config
    info = cfg.model_providers.get(cfg.model_provider)
    if info is None:
        return False
    stored = state.credentials.api_key()
    try:
        return resolve_api_key(info, os.environ, stored) is not None
    except ConfigError:
        return False


async def account_read(
    state: ServerState, ctx: RequestContext, params: acct.GetAccountParams
) -> acct.GetAccountResponse:
    """The ChatGPT account signed in, else an `apiKey` account when the provider has a key, else null."""
    tokens = state.credentials.chatgpt_tokens()
    if params.refresh_token and tokens is not None and state.credentials.external is None:
        # A proactive renewal of a browser sign-in; an app's tokens are the app's to renew.
        await chatgpt_backend.refresh_stored(state, tokens)
    chatgpt = account_login.chatgpt_account(state)
    if chatgpt is not None:
        return acct.GetAccountResponse(account=chatgpt[0], user_id=chatgpt[1])
    return acct.GetAccountResponse(account=acct.ApiKeyAccount() if has_key(state) else None)


async def login_start(
    state: ServerState, ctx: RequestContext, params: acct.LoginAccountParams
) -> acct.LoginAccountResponse:
    """Store an API key; then `account/login/completed` and `account/updated` go to every client."""
    if params.type == "chatgpt":
        return await account_login.browser_start(state, ctx)
    if params.type == "chatgptDeviceCode":
        return await account_login.device_start(state, ctx)
    if params.type == "chatgptAuthTokens":
        return await account_login.tokens_start(state, ctx, params)
    if params.type != "apiKey":
        raise InvalidRequest(
            UNSUPPORTED_LOGIN.format(kind=_KINDS[params.type]),
            data={"reason": "unsupportedLoginType", "type": params.type},
        )
    key = (params.api_key or "").strip()
    if not key:
        raise InvalidParams("Invalid params: `apiKey` must be a non-empty string")
    try:
        await state.credentials.login(key)
    except CredentialStoreError as exc:
        raise InternalError(f"cannot store the API key: {exc}") from None

    def announce() -> None:
        completed = acct.AccountLoginCompletedNotification(success=True)
        send_notification(state.connections(), sm.ACCOUNT_LOGIN_COMPLETED, completed)
        _announce(state)

    ctx.after_response(announce)
    return acct.LoginAccountResponse()


async def logout(state: ServerState, ctx: RequestContext, params: EmptyParams) -> EmptyResult:
    """Forget the stored key (the environment's stays); then `account/updated` to every client."""
    try:
        await state.credentials.logout()
    except CredentialStoreError as exc:
        raise InternalError(f"cannot remove the stored API key: {exc}") from None
    ctx.after_response(lambda: _announce(state))
    return EmptyResult()


def _announce(state: ServerState) -> None:
    # After logout the environment may still hold a key: say what the account is now.
    stored = state.credentials.api_key() is not None
    update = acct.AccountUpdatedNotification(auth_mode="apikey" if stored or has_key(state) else None)
    send_notification(state.connections(), sm.ACCOUNT_UPDATED, update)


async def bedrock_check(
    state: ServerState, ctx: RequestContext, params: EmptyParams
) -> ws.BedrockCheckGovCloudRequirementsResponse:
    return ws.BedrockCheckGovCloudRequirementsResponse()
