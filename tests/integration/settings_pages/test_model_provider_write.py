"""modelProvider/config/write, as Codex 0.169.0 answers it (observed on the real binary).

- Create (`customGateway`, no `providerId`): the id is the name lowercased, every other run of
  characters a dash, trimmed (`"Ünïcode !! x_y"` → `n-code-x-y`, `"!!!"` → `custom`), `-2`, `-3`…
  when a configured or built-in id has it (`"My GW"` twice → `my-gw-2`, `"openai"` → `openai-2`);
  `"Amazon Bedrock"`: "This name is reserved for a built-in provider. Enter a different custom
  provider name."; name, URL and key are trimmed; config.toml gets `[model_providers.<id>]` with
  `base_url`, `env_key`, `name`, `wire_api = "responses"`; the answer is the provider as
  modelProvider/list shows it.
- Edit (`providerId`): given fields change, `null` removes `baseUrl` / `envKey` (auth `none`).
- Refusals, all -32600 with `data.config_write_error_code` and nothing written: a bad base URL
  (not http(s), credentials, a query, a fragment, empty) "Enter an HTTP(S) base URL without
  credentials, a query, or a fragment." — checked first; a bad variable name ("bad key", "",
  "1ABC") "Invalid API key environment variable name."; an empty or blank name "Enter a provider
  name."; no base URL on create "A base URL is required to create a custom provider.";
  (`configValidationError`); a built-in id ("openai", "ollama") "A custom provider or gateway
  cannot use a built-in provider ID." (`configValidationError`); an unknown id (or "") "Unknown
  provider ID." (`configPathNotFound`).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.conftest import StartApp
from tests.support.inprocess import InProcessServer
from tests.support.rpcclient import RpcErrorReply

CONFIG = """# my providers
[model_providers.gw]
name = "Gateway"
base_url = "http://127.0.0.1:9/v1"
env_key = "GW_KEY"
"""
BAD_ENV = "Invalid API key environment variable name."
BUILTIN = "A custom provider or gateway cannot use a built-in provider ID."
INVALID = "configValidationError"
UNKNOWN = ("Unknown provider ID.", "configPathNotFound")
BAD_URL = "Enter an HTTP(S) base URL without credentials, a query, or a fragment."


def _custom(pid: str, name: str, url: str | None, env_key: str | None = None) -> dict[str, object]:
    auth: dict[str, object] = (
        {"mode": "none"} if env_key is None else {"mode": "environmentVariable", "envKey": env_key}
    )
    return {
        "id": pid,
        "name": name,
        "canEdit": True,
        "baseUrl": url,
        "settings": {"type": "customGateway", "auth": auth},
    }


async def _write(server: InProcessServer, **settings: object) -> dict[str, object]:
    answer = await server.request(
        "modelProvider/config/write", {"settings": {"type": "customGateway", **settings}}
    )
    provider = answer["provider"]
    assert isinstance(provider, dict)
    return provider


async def _home(start_app: StartApp, tmp_path: Path) -> InProcessServer:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(CONFIG)
    return await start_app(home=home)


async def test_new_providers_get_ids_from_their_names(start_app: StartApp, tmp_path: Path) -> None:
    server = await _home(start_app, tmp_path)
    url = "https://h.example/v1"
    first = await _write(server, name="  My GW ", baseUrl=f" {url} ", envKey=" K_1 ")
    second = await _write(server, name="My GW", baseUrl=url)
    odd = await _write(server, name="Ünïcode !! x_y", baseUrl=url)
    nothing = await _write(server, name="!!!", baseUrl=url)
    builtin = await _write(server, name="openai", baseUrl=url)
    listed = await server.request("modelProvider/list", {})

    assert first == _custom("my-gw", "My GW", url, "K_1")
    assert second == _custom("my-gw-2", "My GW", url)
    assert odd == _custom("n-code-x-y", "Ünïcode !! x_y", url)
    assert nothing == _custom("custom", "!!!", url)
    assert builtin == _custom("openai-2", "openai", url)
    assert [p["id"] for p in listed["data"]] == [
        "custom", "gw", "mock", "my-gw", "my-gw-2", "n-code-x-y", "openai-2", "openai"
    ]  # fmt: skip
    written = tomllib.loads((server.home / "config.toml").read_text())
    assert written["model_providers"]["my-gw"] == {
        "base_url": url,
        "env_key": "K_1",
        "name": "My GW",
        "wire_api": "responses",
    }
    assert (server.home / "config.toml").read_text().startswith("# my providers\n")


async def test_an_edit_changes_what_it_names_and_null_removes(start_app: StartApp, tmp_path: Path) -> None:
    server = await _home(start_app, tmp_path)
    renamed = await _write(server, providerId="gw", name="Renamed")
    keyless = await _write(server, providerId="gw", envKey=None)
    urlless = await _write(server, providerId="gw", baseUrl=None)

    assert renamed == _custom("gw", "Renamed", "http://127.0.0.1:9/v1", "GW_KEY")
    assert keyless == _custom("gw", "Renamed", "http://127.0.0.1:9/v1")
    assert urlless == _custom("gw", "Renamed", None)
    assert tomllib.loads((server.home / "config.toml").read_text())["model_providers"]["gw"] == {
        "name": "Renamed"
    }


REFUSALS: list[tuple[dict[str, object], str, str]] = [
    ({"name": "X", "baseUrl": "not a url"}, BAD_URL, INVALID),
    ({"name": "X", "baseUrl": "ftp://h/v1"}, BAD_URL, INVALID),
    ({"name": "X", "baseUrl": "https://u:p@h.example/v1"}, BAD_URL, INVALID),
    ({"name": "X", "baseUrl": "https://h.example/v1?x=1"}, BAD_URL, INVALID),
    ({"name": "X", "baseUrl": "https://h.example/v1#f"}, BAD_URL, INVALID),
    ({"name": "", "baseUrl": "bad", "envKey": "bad key"}, BAD_URL, INVALID),
    ({"providerId": "gw", "baseUrl": ""}, BAD_URL, INVALID),
    ({"name": "X", "envKey": "bad key"}, BAD_ENV, INVALID),
    ({"name": "X", "envKey": ""}, BAD_ENV, INVALID),
    ({"name": "X", "baseUrl": "https://h/v1", "envKey": "1ABC"}, BAD_ENV, INVALID),
    ({}, "Enter a provider name.", "configValidationError"),
    ({"name": "  "}, "Enter a provider name.", "configValidationError"),
    ({"providerId": "gw", "name": ""}, "Enter a provider name.", "configValidationError"),
    ({"name": "X"}, "A base URL is required to create a custom provider.", "configValidationError"),
    (
        {"name": "Amazon Bedrock", "baseUrl": "http://h/v1"},
        "This name is reserved for a built-in provider. Enter a different custom provider name.",
        "configValidationError",
    ),
    ({"providerId": "openai", "name": "X"}, BUILTIN, INVALID),
    ({"providerId": "ollama", "name": "X"}, BUILTIN, INVALID),
    ({"providerId": "nope", "name": "X"}, *UNKNOWN),
    ({"providerId": "", "name": "X", "baseUrl": "https://h/v1"}, *UNKNOWN),
]  # fmt: skip


async def test_refused_forms_say_why_and_change_nothing(start_app: StartApp, tmp_path: Path) -> None:
    server = await _home(start_app, tmp_path)
    seen = []
    for settings, _message, _code in REFUSALS:
        with pytest.raises(RpcErrorReply) as caught:
            await _write(server, **settings)
        seen.append(
            (
                caught.value.code,
                caught.value.message,
                (caught.value.data or {}).get("config_write_error_code"),
            )
        )
    with pytest.raises(RpcErrorReply) as extra:
        await _write(server, name="Y", baseUrl="https://h/v1", extra=1)

    assert seen == [(-32600, message, code) for _settings, message, code in REFUSALS]
    assert extra.value.data is None or "config_write_error_code" not in extra.value.data
    assert (server.home / "config.toml").read_text() == CONFIG
