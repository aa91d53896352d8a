"""`account/read`: who the daemon talks to the model as. Tether uses provider API keys only."""

from __future__ import annotations

from typing import Literal

from tether_protocol.common import WireModel


class GetAccountParams(WireModel):
    """`account/read` params."""

    refresh_token: bool = False


class ApiKeyAccount(WireModel):
    """The account is an API key taken from the provider's `env_key`."""

    type: Literal["apiKey"] = "apiKey"


class GetAccountResponse(WireModel):
    """`account/read` result: `account` is null when the provider's key is not set."""

    account: ApiKeyAccount | None = None
    requires_openai_auth: bool = False
    user_id: str | None = None


LoginType = Literal[
    "apiKey", "chatgpt", "chatgptDeviceCode", "chatgptAuthTokens", "amazonBedrock", "amazonBedrockAccessKeys"
]


class LoginAccountParams(WireModel):
    """`account/login/start` params. Codex's union is flattened: `type` says which sign-in.

    Tether takes `apiKey` only; the ChatGPT and Bedrock types parse, so that the server can
    answer them with a clear error instead of a validation failure.
    """

    type: LoginType
    api_key: str | None = None


class LoginAccountResponse(WireModel):
    """`account/login/start` result for an API key: nothing to open in a browser."""

    type: Literal["apiKey"] = "apiKey"


class AccountLoginCompletedNotification(WireModel):
    """`account/login/completed`: a sign-in finished (`loginId` is null for an API key)."""

    login_id: str | None = None
    success: bool
    error: str | None = None


class AccountUpdatedNotification(WireModel):
    """`account/updated`: the account changed; `authMode` is `apikey`, or null when signed out."""

    auth_mode: Literal["apikey"] | None = None
    plan_type: None = None
