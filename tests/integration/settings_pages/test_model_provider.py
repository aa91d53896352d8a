"""modelProvider/list, modelProvider/capabilities/read, permissionProfile/list, configRequirements/read.

What Codex 0.169.0 answered (observed on the real binary; no auth or an API key alike):
- modelProvider/list: the `[model_providers]` entries sorted by id, as `customGateway` with
  `canEdit: true`, their `baseUrl`, and `auth` `environmentVariable` (with `envKey`) when `env_key` is
  set, `externallyConfigured` (`envKey` null) for a bearer token, headers or `requires_openai_auth`,
  else `none`; then `{"id": "openai", "name": "OpenAI", "canEdit": false, "baseUrl": null,
  "settings": {"type": "openai"}}`. Selected ollama is not listed. `defaultProviderId` is
  `model_provider`; `canChangeDefault` is false when a `-c` flag chose it, true otherwise.
- modelProvider/capabilities/read: `{"imageGeneration": true, "webSearch": true}` for OpenAI and custom.
- permissionProfile/list: `:read-only`, `:workspace`, `:danger-full-access`, description null, all
  allowed without requirements; `limit` pages by offset (0 counts as 1), `nextCursor` the offset as a
  string; cursor "x": -32600 "invalid cursor: x"; cursor "4": -32600 "cursor 4 exceeds total
  permission profiles 3"; cursor "3": an empty page. `cwd` (even relative) changes nothing.
- configRequirements/read without requirements.toml: `{"requirements": null,
  "supportsIndependentSpeedModes": true}`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import StartApp
from tests.support.inprocess import InProcessServer
from tests.support.rpcclient import RpcErrorReply
from tether_testing.fake_responses import FakeResponsesServer

OPENAI = {"id": "openai", "name": "OpenAI", "canEdit": False, "baseUrl": None, "settings": {"type": "openai"}}
PROFILES = [
    {"id": ":read-only", "description": None, "allowed": True},
    {"id": ":workspace", "description": None, "allowed": True},
    {"id": ":danger-full-access", "description": None, "allowed": True},
]
CONFIG = """model_provider = "fake"
[model_providers.fake]
name = "Fake"
base_url = "http://127.0.0.1:9/v1"
env_key = "FAKE_KEY"
[model_providers.b]
name = "Bee"
base_url = "http://127.0.0.1:9/v2"
experimental_bearer_token = "tok"
[model_providers.a]
base_url = "http://127.0.0.1:9/v3"
requires_openai_auth = true
"""


async def test_the_test_provider_chosen_by_a_flag_is_listed_first_and_the_default_is_fixed(
    start_app: StartApp, fake_model: FakeResponsesServer
) -> None:
    server = await start_app()
    listed = await server.request("modelProvider/list", {})
    assert listed == {
        "data": [
            {
                "id": "mock",
                "name": "mock",
                "canEdit": True,
                "baseUrl": fake_model.base_url,
                "settings": {"type": "customGateway", "auth": {"mode": "none"}},
            },
            OPENAI,
        ],
        "defaultProviderId": "mock",
        "canChangeDefault": False,
    }
    assert await server.request("modelProvider/capabilities/read", {}) == {
        "imageGeneration": True,
        "webSearch": True,
    }


async def test_providers_of_config_toml_with_their_auth_kinds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(CONFIG)
    monkeypatch.setenv("TETHER_HOME", str(home))
    monkeypatch.chdir(home)
    server = await InProcessServer.start(home)
    try:
        await server.initialize()
        listed = await server.request("modelProvider/list", {})
    finally:
        await server.close()

    def gateway(pid: str, name: str, url: str, auth: dict[str, object]) -> dict[str, object]:
        settings = {"type": "customGateway", "auth": auth}
        return {"id": pid, "name": name, "canEdit": True, "baseUrl": url, "settings": settings}

    external: dict[str, object] = {"mode": "externallyConfigured", "envKey": None}
    assert listed == {
        "data": [
            gateway("a", "a", "http://127.0.0.1:9/v3", external),
            gateway("b", "Bee", "http://127.0.0.1:9/v2", external),
            gateway(
                "fake", "Fake", "http://127.0.0.1:9/v1", {"mode": "environmentVariable", "envKey": "FAKE_KEY"}
            ),
            OPENAI,
        ],
        "defaultProviderId": "fake",
        "canChangeDefault": True,
    }


async def test_permission_profiles_page_as_codex_pages_them(start_app: StartApp) -> None:
    server = await start_app()
    everything = await server.request("permissionProfile/list", {"cwd": "relative"})
    first = await server.request("permissionProfile/list", {"limit": 0})
    second = await server.request("permissionProfile/list", {"limit": 1, "cursor": "1"})
    end = await server.request("permissionProfile/list", {"cursor": "3"})
    assert everything == {"data": PROFILES, "nextCursor": None}
    assert first == {"data": PROFILES[:1], "nextCursor": "1"}
    assert second == {"data": PROFILES[1:2], "nextCursor": "2"}
    assert end == {"data": [], "nextCursor": None}
    for cursor, message in (
        ("x", "invalid cursor: x"),
        ("4", "cursor 4 exceeds total permission profiles 3"),
    ):
        with pytest.raises(RpcErrorReply) as caught:
            await server.request("permissionProfile/list", {"cursor": cursor})
        assert (caught.value.code, caught.value.message) == (-32600, message)


async def test_no_managed_requirements_read_as_null(start_app: StartApp) -> None:
    server = await start_app()
    answer = await server.request("configRequirements/read")
    assert answer == {"requirements": None, "supportsIndependentSpeedModes": True}
