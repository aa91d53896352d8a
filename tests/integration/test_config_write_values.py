"""config/value/write and config/batchWrite with bad values and with no edits, answered as Codex does.

What Codex 0.169.0 answered (observed on the real binary, issue 25 item 7):
- a null anywhere inside the written value (a table entry, an array item, at any depth, either merge
  strategy): -32600, data `{"config_write_error_code": "configValidationError"}`, message
  "invalid value: invalid type: null, expected any valid TOML value"; the file is unchanged.
  A null as the whole value removes the key (not an error).
- a value of the wrong type or an unknown enum value: -32600, same data, a message starting
  "Invalid configuration: " and naming the dotted key (Codex: "…expected a string\\nin `model`").
- `config/batchWrite` with `edits: []`: `status: "ok"`, the file's current version, nothing written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcErrorReply
from tether_server.config.load import content_version

SEEDED = 'model = "gpt-5.5"\n\n[sandbox_workspace_write]\nnetwork_access = false\n'
NULL_MESSAGE = "invalid value: invalid type: null, expected any valid TOML value"
INVALID = {"config_write_error_code": "configValidationError"}


def _write(key: str, value: Any, merge: str = "replace") -> tuple[str, dict[str, Any]]:
    return "config/value/write", {"keyPath": key, "value": value, "mergeStrategy": merge}


def _batch(key: str, value: Any) -> tuple[str, dict[str, Any]]:
    return "config/batchWrite", {"edits": [{"keyPath": key, "value": value, "mergeStrategy": "replace"}]}


NESTED_NULLS = [
    _write("model_providers.x", {"name": None, "base_url": "http://127.0.0.1:1/v1"}),
    _write("sandbox_workspace_write", {"network_access": None}),
    _write("sandbox_workspace_write", {"network_access": None}, "upsert"),
    _write("project_doc_fallback_filenames", ["a", None]),
    _write("features", {"goals": None}),
    _write("shell_environment_policy", {"set": {"A": None}}),
    _batch("sandbox_workspace_write", {"writable_roots": [None]}),
]


@pytest.mark.parametrize(("method", "params"), NESTED_NULLS)
async def test_a_null_inside_a_written_value_is_codexs_validation_error_and_changes_nothing(
    start_app: StartApp, tmp_path: Path, method: str, params: dict[str, Any]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(SEEDED)
    server = await start_app(home=home)
    with pytest.raises(RpcErrorReply) as caught:
        await server.request(method, params)
    assert (caught.value.code, caught.value.message, caught.value.data) == (-32600, NULL_MESSAGE, INVALID)
    assert (home / "config.toml").read_text() == SEEDED


BAD_TYPES = [
    (_write("model", 5), "model"),
    (_write("sandbox_mode", "bogus"), "sandbox_mode"),
    (_write("sandbox_workspace_write", {"network_access": "yes"}), "sandbox_workspace_write.network_access"),
    (_write("model_context_window", "big"), "model_context_window"),
    (_write("model_context_window", 1.5), "model_context_window"),
    (_batch("model", 5), "model"),
]


@pytest.mark.parametrize(("request_", "key"), BAD_TYPES)
async def test_a_value_of_the_wrong_type_is_a_validation_error_naming_the_key(
    start_app: StartApp, tmp_path: Path, request_: tuple[str, dict[str, Any]], key: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(SEEDED)
    server = await start_app(home=home)
    with pytest.raises(RpcErrorReply) as caught:
        await server.request(*request_)
    assert (caught.value.code, caught.value.data) == (-32600, INVALID)
    assert caught.value.message.startswith("Invalid configuration: ")
    assert f"`{key}`" in caught.value.message
    assert (home / "config.toml").read_text() == SEEDED


async def test_an_empty_batch_answers_ok_with_the_current_version_and_writes_nothing(
    start_app: StartApp, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(SEEDED)
    server = await start_app(home=home)
    result = await server.request("config/batchWrite", {"edits": []})
    assert result == {
        "status": "ok",
        "version": content_version(SEEDED),
        "filePath": str(home / "config.toml"),
        "overriddenMetadata": None,
    }
    assert (home / "config.toml").read_text() == SEEDED
