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
