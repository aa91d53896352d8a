"""`account/rateLimits/read`, `account/usage/read`, `account/workspaceMessages/read`,
`account/securitySetup/read`: what an account page reads (`account/login/cancel` is in `account_login`).

Limits, usage and workspace messages belong to a ChatGPT account on OpenAI's backend: a ChatGPT
sign-in reads them from that backend (`chatgpt_backend`, `chatgpt_usage`); an API key (or no
account) gets Codex's -32600 errors, worded by the account kind.
"""

from __future__ import annotations

from tether_protocol.common import EmptyParams
from tether_protocol.v2 import account_limits as al
from tether_server.errors import InvalidRequest
from tether_server.processor import chatgpt_backend, chatgpt_usage
from tether_server.processor.methods.account import has_key
from tether_server.processor.methods.account_login import login_cancel as login_cancel  # routed from here
from tether_server.processor.state import ServerState
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext


def _chatgpt_only(state: ServerState, what: str) -> InvalidRequest:
    # Codex names what is missing: any account at all, or (with an API key) a ChatGPT one.
    kind = "chatgpt" if has_key(state) else "codex account"
    return InvalidRequest(f"{kind} authentication required to read {what}")


async def rate_limits_read(
    state: ServerState, ctx: RequestContext, params: al.GetAccountRateLimitsParams
) -> al.GetAccountRateLimitsResponse:
    """A ChatGPT account's limits come from its backend; any other account gets Codex's error."""
    tokens = state.credentials.chatgpt_tokens()
    if tokens is not None:
        return al.GetAccountRateLimitsResponse(rate_limits=await chatgpt_backend.rate_limits(state, tokens))
    raise _chatgpt_only(state, "rate limits")


async def usage_read(
    state: ServerState, ctx: RequestContext, params: al.GetAccountTokenUsageParams
) -> al.GetAccountTokenUsageResponse:
    """A ChatGPT account's usage (or one thread's estimate) comes from its backend."""
    tokens = state.credentials.chatgpt_tokens()
    if tokens is not None:
        if params.thread_id is not None:
            check_thread_id(params.thread_id)
        return await chatgpt_usage.usage(state, tokens, params.thread_id)
    raise _chatgpt_only(state, "token usage")


async def workspace_messages_read(
    state: ServerState, ctx: RequestContext, params: EmptyParams
) -> al.GetWorkspaceMessagesResponse:
    tokens = state.credentials.chatgpt_tokens()
    if tokens is not None:
        return await chatgpt_usage.workspace_messages(state, tokens)
    raise _chatgpt_only(state, "workspace messages")


async def security_setup_read(
    state: ServerState, ctx: RequestContext, params: EmptyParams
) -> al.GetAccountSecuritySetupResponse:
    """No notice: Codex has none for an API key or no account."""
    return al.GetAccountSecuritySetupResponse(notice=None)
