"""`account/read` and sign-in: an API key, or a ChatGPT account (browser sign-in or app-supplied tokens)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import SerializerFunctionWrapHandler, model_serializer

from tether_protocol.common import WireModel


class GetAccountParams(WireModel):
    """`account/read` params."""

    refresh_token: bool = False


class ApiKeyAccount(WireModel):
    """The account is an API key taken from the provider's `env_key`."""

    type: Literal["apiKey"] = "apiKey"


class ChatgptAccount(WireModel):
    """A ChatGPT account: `email` and `planType` come from the sign-in's id_token claims."""

    type: Literal["chatgpt"] = "chatgpt"
    email: str | None = None
    plan_type: str = "unknown"
    workspace_name: str | None = None


class GetAccountResponse(WireModel):
    """`account/read` result: `account` is null when there is no key and no ChatGPT sign-in."""

    account: ApiKeyAccount | ChatgptAccount | None = None
    requires_openai_auth: bool = False
    user_id: str | None = None


LoginType = Literal[
    "apiKey", "chatgpt", "chatgptDeviceCode", "chatgptAuthTokens", "amazonBedrock", "amazonBedrockAccessKeys"
]


class LoginAccountParams(WireModel):
    """`account/login/start` params. Codex's union is flattened: `type` says which sign-in.

    The Bedrock types parse, so that the server can answer them with a clear error instead of a
    validation failure.
    """

    type: LoginType
    api_key: str | None = None
    access_token: str | None = None
    chatgpt_account_id: str | None = None
    chatgpt_plan_type: str | None = None
    codex_streamlined_login: bool | None = None
    use_hosted_login_success_page: bool | None = None
    app_brand: str | None = None


class LoginAccountResponse(WireModel):
    """`account/login/start` result: `chatgpt` adds the URL to open and the sign-in's id."""

    type: Literal["apiKey", "chatgpt", "chatgptDeviceCode", "chatgptAuthTokens"] = "apiKey"
    login_id: str | None = None
    auth_url: str | None = None
    user_code: str | None = None
    verification_url: str | None = None

    @model_serializer(mode="wrap")
    def _own_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Each variant of Codex's union has only its own keys: no null loginId for an API key.
        dumped: dict[str, Any] = handler(self)
        return {k: v for k, v in dumped.items() if v is not None}


class ChatgptAuthTokensRefreshParams(WireModel):
    """`account/chatgptAuthTokens/refresh` (server request): the app's tokens were refused."""

    reason: Literal["unauthorized"] = "unauthorized"
    previous_account_id: str | None = None


class ChatgptAuthTokensRefreshResponse(WireModel):
    """The app's answer: fresh tokens for the same (or another) workspace."""

    access_token: str
    chatgpt_account_id: str
    chatgpt_plan_type: str | None = None


class AccountLoginCompletedNotification(WireModel):
    """`account/login/completed`: a sign-in finished (`loginId` is null for an API key)."""

    login_id: str | None = None
    success: bool
    error: str | None = None


class AccountUpdatedNotification(WireModel):
    """`account/updated`: the account changed; `authMode` is null when signed out."""

    auth_mode: Literal["apikey", "chatgpt", "chatgptAuthTokens"] | None = None
    plan_type: str | None = None
