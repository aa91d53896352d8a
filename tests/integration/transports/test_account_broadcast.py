"""A login or logout by one client is announced to every connected client."""

from __future__ import annotations

import pytest

from tests.integration.transports.conftest import StartSocketServer
from tests.support.wsclient import WsClient

KEY = "sk-shared-0123456789abcdef"


async def test_account_updated_reaches_a_second_connected_client(
    socket_server: StartSocketServer, clients: list[WsClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # the daemon inherits the environment
    # The stored key serves OpenAI-authenticated providers: make the mock one.
    server = await socket_server("--listen", "unix://", "-c", 'model_providers.mock.env_key="OPENAI_API_KEY"')
    first, second = await server.connect_unix(), await server.connect_unix()
    clients.extend([first, second])
    for client in clients:
        await client.initialize()

    mark = second.mark()
    await first.request("account/login/start", {"type": "apiKey", "apiKey": KEY})
    logged_in = await second.notification("account/updated", after=mark)
    seen = await second.request("account/read", {})
    mark = second.mark()
    await first.request("account/logout")
    logged_out = await second.notification("account/updated", after=mark)

    assert logged_in["params"] == {"authMode": "apikey", "planType": None}
    assert seen["account"] == {"type": "apiKey"}
    assert logged_out["params"] == {"authMode": None, "planType": None}
    assert not (server.home / "auth.json").exists()
