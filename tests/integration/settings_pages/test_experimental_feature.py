"""experimentalFeature/list and experimentalFeature/enablement/set, as Codex 0.169.0 answers them.

Observed on the real binary (no auth or an API key alike):
- the list is Codex's 215 flags in a fixed order, first `analytics_plan_history` (beta, with its
  display name, description and an empty announcement), `cli_resume_account_check`
  (underDevelopment, copy null), `daemon_auto_start` (stable, on by default); without `limit` all
  of them and `nextCursor` null; `limit` pages by offset (0 counts as 1); cursor "215" is an empty
  last page, "300" is -32600 "cursor 300 exceeds total feature flags 215", "-1" and "bogus" are
  -32600 "invalid cursor: …".
- `enabled` follows `[features]` in config.toml (`analytics_plan_history = true`,
  `shell_tool = false`), `defaultEnabled` does not.
- `threadId` "nope": -32600 "invalid thread id: invalid character: expected an optional prefix of
  `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1"; "abc": "invalid thread id: invalid length:
  expected length 32 for simple format, found 3"; an unknown UUID: "thread not found: <id>".
- enablement/set applies only 15 runtime-toggleable flags (`memories`, `tool_suggest`, …) and
  answers those applied, sorted; any other name (beta, stable, unknown) is left out of the answer
  and changes nothing. Applied flags show in the list; nothing is written to config.toml.
- a flag config.toml sets keeps the config's value in the list even after enablement/set changed it
  (`memories = false` and `tool_suggest = true` stay so; the set still answers them as applied).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcErrorReply

FIRST = {
    "name": "analytics_plan_history",
    "stage": "beta",
    "displayName": "Analytics plan history",
    "description": "Preview five-hour and weekly allowance history for consumer accounts in /analytics.",
    "announcement": "",
    "enabled": False,
    "defaultEnabled": False,
}
PLAIN = {"displayName": None, "description": None, "announcement": None}


def _by_name(listed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["name"]: f for f in listed["data"]}


async def test_the_list_is_codexs_catalogue_paged_by_offset(start_app: StartApp) -> None:
    server = await start_app()
    everything = await server.request("experimentalFeature/list", {})
    page = await server.request("experimentalFeature/list", {"limit": 2, "cursor": "1"})
    one = await server.request("experimentalFeature/list", {"limit": 0})
    last = await server.request("experimentalFeature/list", {"cursor": "215"})

    assert len(everything["data"]) == 215 and everything["nextCursor"] is None
    assert everything["data"][0] == FIRST
    assert page == {
        "data": [
            {"name": "cli_resume_account_check", "stage": "underDevelopment", **PLAIN}
            | {"enabled": False, "defaultEnabled": False},
            {"name": "daemon_auto_start", "stage": "stable", **PLAIN}
            | {"enabled": True, "defaultEnabled": True},
        ],
        "nextCursor": "3",
    }
    assert one == {"data": [FIRST], "nextCursor": "1"}
    assert last == {"data": [], "nextCursor": None}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"cursor": "300"}, "cursor 300 exceeds total feature flags 215"),
        ({"cursor": "-1"}, "invalid cursor: -1"),
        ({"cursor": "bogus"}, "invalid cursor: bogus"),
        (
            {"threadId": "nope"},
            "invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` "
            "followed by [0-9a-fA-F-], found `n` at 1",
        ),
        (
            {"threadId": "abc"},
            "invalid thread id: invalid length: expected length 32 for simple format, found 3",
        ),
        (
            {"threadId": "00000000-0000-0000-0000-000000000000"},
            "thread not found: 00000000-0000-0000-0000-000000000000",
        ),
    ],
)
async def test_bad_cursors_and_thread_ids_get_codexs_errors(
    start_app: StartApp, params: dict[str, Any], message: str
) -> None:
    server = await start_app()
    with pytest.raises(RpcErrorReply) as caught:
        await server.request("experimentalFeature/list", params)
    assert (caught.value.code, caught.value.message) == (-32600, message)


async def test_a_loaded_thread_lists_the_same_flags(start_app: StartApp, workdir: Path) -> None:
    server = await start_app()
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    listed = await server.request("experimentalFeature/list", {"threadId": thread_id, "limit": 1})
    assert listed == {"data": [FIRST], "nextCursor": "1"}


async def test_the_features_table_of_config_toml_sets_enabled(start_app: StartApp, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("[features]\nanalytics_plan_history = true\nshell_tool = false\n")
    server = await start_app(home=home)
    flags = _by_name(await server.request("experimentalFeature/list", {}))
    assert (
        flags["analytics_plan_history"]["enabled"],
        flags["analytics_plan_history"]["defaultEnabled"],
    ) == (
        True,
        False,
    )
    assert (flags["shell_tool"]["enabled"], flags["shell_tool"]["defaultEnabled"]) == (False, True)


async def test_enablement_applies_the_runtime_flags_only_and_writes_nothing(
    start_app: StartApp, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    server = await start_app(home=home)
    ignored = await server.request(
        "experimentalFeature/enablement/set",
        {"enablement": {"analytics_plan_history": True, "shell_tool": False, "no_such_feature": True}},
    )
    applied = await server.request(
        "experimentalFeature/enablement/set",
        {"enablement": {"tool_suggest": False, "memories": True, "undo": True}},
    )
    noop = await server.request("experimentalFeature/enablement/set", {"enablement": {}})
    flags = _by_name(await server.request("experimentalFeature/list", {}))

    assert ignored == {"enablement": {}}
    assert applied == {"enablement": {"memories": True, "tool_suggest": False}}
    assert noop == {"enablement": {}}
    assert flags["memories"]["enabled"] is True and flags["tool_suggest"]["enabled"] is False
    assert flags["analytics_plan_history"]["enabled"] is False and flags["shell_tool"]["enabled"] is True
    assert flags["undo"]["enabled"] is False
    assert not (home / "config.toml").exists()

    # Process-wide and in memory, as in Codex: a restarted daemon starts from the config again.
    await server.close()
    again = _by_name(await (await start_app(home=home)).request("experimentalFeature/list", {}))
    assert again["memories"]["enabled"] is False and again["tool_suggest"]["enabled"] is True


async def test_a_non_boolean_enablement_is_refused_and_changes_nothing(start_app: StartApp) -> None:
    server = await start_app()
    with pytest.raises(RpcErrorReply) as caught:
        await server.request("experimentalFeature/enablement/set", {"enablement": {"memories": "yes"}})
    flags = _by_name(await server.request("experimentalFeature/list", {}))
    # Codex: -32600 with serde's text; Tether's validation errors are -32602 (docs/protocol.md).
    assert caught.value.code == -32602
    assert caught.value.message.startswith("Invalid params: `enablement.memories`")
    assert flags["memories"]["enabled"] is False


async def test_the_config_wins_over_runtime_enablement(start_app: StartApp, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("[features]\nmemories = false\ntool_suggest = true\n")
    server = await start_app(home=home)
    applied = await server.request(
        "experimentalFeature/enablement/set", {"enablement": {"memories": True, "tool_suggest": False}}
    )
    flags = _by_name(await server.request("experimentalFeature/list", {}))
    assert applied == {"enablement": {"memories": True, "tool_suggest": False}}
    assert (flags["memories"]["enabled"], flags["tool_suggest"]["enabled"]) == (False, True)
