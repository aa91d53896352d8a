"""The methods the Codex TUI calls besides threads and turns, served in process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.memory import MemoryClient
from tests.support.rpcclient import RpcErrorReply
from tests.unit.processor.conftest import Connect

from tether_server.app import App
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _home(app: App) -> Path:
    assert app.running is not None
    return app.running.state.home


@pytest.fixture
async def experimental(app: App, connect: Connect) -> AsyncIterator[MemoryClient]:
    """A client that opted into the experimental API, as the Codex TUI does."""
    await connect()
    assert app.running is not None
    client = MemoryClient(app.running.dispatcher)
    await client.initialize(experimental=True)
    yield client
    await client.close()
    client.check()


async def _turn(client: MemoryClient, thread_id: str, text: str) -> None:
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    await client.notification("turn/completed", after=mark)


async def test_batch_write_edits_the_file_and_new_threads_use_it_at_once(
    app: App, connect: Connect, workdir: Path
) -> None:
    client = await connect()
    home = _home(app)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('# mine\napproval_policy = "on-request"  # for now\n')
    version = (await client.request("config/read", {}))["origins"]
    answer = await client.request(
        "config/batchWrite",
        {
            "edits": [
                {"keyPath": "approval_policy", "value": "never", "mergeStrategy": "replace"},
                {
                    "keyPath": f'projects."{workdir}".trust_level',
                    "value": "trusted",
                    "mergeStrategy": "replace",
                },
            ],
            "reloadUserConfig": True,
        },
    )
    assert answer["status"] == "ok" and answer["overriddenMetadata"] is None
    assert answer["filePath"] == str(home / "config.toml")
    text = (home / "config.toml").read_text()
    assert text.startswith('# mine\napproval_policy = "never"  # for now\n')
    assert f'[projects."{workdir}"]\ntrust_level = "trusted"' in text
    started = await client.request("thread/start", {"cwd": str(workdir)})
    assert started["approvalPolicy"] == "never"
    assert started["sandbox"]["type"] == "workspaceWrite"
    read = await client.request("config/read", {})
    assert read["origins"]["approval_policy"]["version"] == answer["version"] != version


async def test_a_write_masked_by_a_flag_says_so_and_a_stale_version_conflicts(
    app: App, connect: Connect
) -> None:
    client = await connect()
    home = _home(app)
    masked = await client.request(
        "config/value/write", {"keyPath": "model", "value": "other", "mergeStrategy": "replace"}
    )
    assert masked["status"] == "okOverridden"
    assert masked["overriddenMetadata"]["effectiveValue"] == "gpt-test"
    assert masked["overriddenMetadata"]["overridingLayer"]["name"] == {"type": "sessionFlags"}
    before = (home / "config.toml").read_text()
    with pytest.raises(RpcErrorReply) as caught:
        await client.request(
            "config/value/write",
            {"keyPath": "model", "value": "x", "mergeStrategy": "replace", "expectedVersion": "sha256:old"},
        )
    assert caught.value.code == -32600
    assert caught.value.data == {"config_write_error_code": "configVersionConflict"}
    assert (home / "config.toml").read_text() == before
    ok = await client.request(
        "config/value/write",
        {"keyPath": "model", "value": "y", "mergeStrategy": "replace", "expectedVersion": masked["version"]},
    )
    assert ok["status"] == "okOverridden"


async def test_skills_hooks_plugins_mcp_and_requirements_answer_from_disk_and_config(
    app: App, connect: Connect, workdir: Path
) -> None:
    client = await connect()
    skill = workdir / ".agents" / "skills" / "lint" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: lint\ndescription: Run the linters.\n---\nbody\n")
    skills = await client.request("skills/list", {"cwds": [str(workdir)], "forceReload": True})
    (entry,) = skills["data"]
    assert entry["cwd"] == str(workdir) and entry["errors"] == []
    own = [s for s in entry["skills"] if s["scope"] != "system"]  # Tether's own skills come last
    assert [(s["name"], s["description"], s["path"], s["scope"]) for s in own] == [
        ("lint", "Run the linters.", str(skill), "repo")
    ]
    hooks = await client.request("hooks/list", {"cwds": [str(workdir)]})
    assert hooks == {"data": [{"cwd": str(workdir), "hooks": [], "warnings": [], "errors": []}]}
    assert await client.request("plugin/installed", {"cwds": [str(workdir)]}) == {
        "marketplaces": [],
        "marketplaceLoadErrors": [],
    }
    assert (await client.request("mcpServerStatus/list", {}))["data"] == []
    requirements = await client.call("configRequirements/read")
    assert requirements["result"]["requirements"] is None


async def test_experimental_methods_need_the_capability(connect: Connect) -> None:
    plain = await connect()
    reply = await plain.call("thread/search", {"searchTerm": "x"})
    assert reply["error"]["code"] == -32600 and "experimentalApi" in reply["error"]["message"]


async def _unread_after_turn(client: MemoryClient, thread_id: str, text: str) -> dict[str, Any]:
    """Run a turn; its completion marks the thread unread from that turn (as Codex)."""
    mark = client.mark()
    started = await client.request(
        "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]}
    )
    changed = await client.notification("thread/readState/changed", after=mark)
    assert changed["params"]["threadId"] == thread_id
    state: dict[str, Any] = changed["params"]["readState"]
    assert state["firstUnread"] == {"type": "turn", "turnId": started["turn"]["id"]}
    return state


async def test_search_finds_threads_by_message_text(
    experimental: MemoryClient, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    client = experimental
    fake_model.add(script.text_reply("the answer mentions zebra"))
    fake_model.add(script.text_reply("nothing here"))
    first = (await client.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    await _turn(client, first, "tell me about a quokka")
    second = (await client.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    await _turn(client, second, "something else")
    found = await client.request("thread/search", {"searchTerm": "quokka"})
    assert [r["thread"]["id"] for r in found["data"]] == [first]
    assert "quokka" in found["data"][0]["snippet"]
    assert (await client.request("thread/search", {"searchTerm": "platypus"}))["data"] == []
    for key in ("created_at", "updated_at", "recency_at"):  # every key of ThreadSearchSortKey
        ordered = await client.request("thread/search", {"searchTerm": "quokka", "sortKey": key})
        assert [r["thread"]["id"] for r in ordered["data"]] == [first], key
    empty = await client.call("thread/search", {"searchTerm": "  "})
    assert empty["error"]["code"] == -32600


async def test_a_finished_turn_leaves_its_thread_unread_until_a_client_marks_it_read(
    experimental: MemoryClient, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    client = experimental
    fake_model.add(script.text_reply("one"))
    fake_model.add(script.text_reply("two"))
    thread_id = (await client.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    unread = await _unread_after_turn(client, thread_id, "first")
    assert (await client.request("thread/read", {"threadId": thread_id}))["readState"] == unread

    mark = client.mark()
    read = await client.request(
        "thread/readState/update",
        {"threadId": thread_id, "operation": {"type": "read"}, "expectedRevision": unread["revision"]},
    )
    assert read["readState"]["firstUnread"] is None and read["readState"]["revision"] != unread["revision"]
    changed = await client.notification("thread/readState/changed", after=mark)
    assert changed["params"] == {"threadId": thread_id, "readState": read["readState"]}

    stale = await client.call(
        "thread/readState/update",
        {"threadId": thread_id, "operation": {"type": "unread"}, "expectedRevision": unread["revision"]},
    )
    assert stale["error"]["code"] == -32600
    assert stale["error"]["data"] == {"readState": read["readState"]}

    again = await _unread_after_turn(client, thread_id, "second")
    marked = await client.request(
        "thread/readState/update",
        {"threadId": thread_id, "operation": {"type": "unread"}, "expectedRevision": again["revision"]},
    )
    assert marked["readState"]["firstUnread"] == {"type": "threadStart"}
    listed = await client.request("thread/list", {})
    assert listed["readStates"] == {thread_id: marked["readState"]}


async def test_settings_update_changes_the_next_turns_request(
    experimental: MemoryClient, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    client = experimental
    fake_model.add(script.text_reply("ok"))
    thread_id = (await client.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    assert await client.request("thread/settings/update", {"threadId": thread_id, "effort": "high"}) == {}
    await _turn(client, thread_id, "go")
    assert fake_model.requests[-1].body["reasoning"]["effort"] == "high"
    assert (await client.request("thread/goal/get", {"threadId": thread_id})) == {"goal": None}
    terminals = await client.request("thread/backgroundTerminals/list", {"threadId": thread_id})
    assert terminals == {"data": [], "nextCursor": None}


async def test_project_trust_sets_the_defaults_of_new_threads_as_codex_does(
    connect: Connect, tmp_path: Path
) -> None:
    client = await connect()
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def defaults(cwd: Path) -> tuple[str, str]:
        started = await client.request("thread/start", {"cwd": str(cwd)})
        return started["approvalPolicy"], started["sandbox"]["type"]

    assert await defaults(repo) == ("on-request", "readOnly")
    edit = {"keyPath": f'projects."{repo}".trust_level', "value": "trusted", "mergeStrategy": "replace"}
    await client.request("config/batchWrite", {"edits": [edit]})
    assert await defaults(repo / "src") == ("on-request", "workspaceWrite")
    assert await defaults(elsewhere) == ("on-request", "readOnly")
    await client.request("config/batchWrite", {"edits": [{**edit, "value": "untrusted"}]})
    assert await defaults(repo) == ("untrusted", "workspaceWrite")
    explicit = await client.request("thread/start", {"cwd": str(repo), "sandbox": "read-only"})
    assert explicit["sandbox"]["type"] == "readOnly"
    await client.request(
        "config/value/write", {"keyPath": "sandbox_mode", "value": "read-only", "mergeStrategy": "replace"}
    )
    assert await defaults(repo) == ("untrusted", "readOnly")


async def test_two_clients_writing_from_the_same_version_one_wins_the_other_conflicts(
    app: App, connect: Connect
) -> None:
    first, second = await connect(), await connect()
    seed = {"keyPath": "tui.a", "value": 0, "mergeStrategy": "replace"}
    version = (await first.request("config/value/write", seed))["version"]

    def write(key: str) -> dict[str, object]:
        return {"keyPath": key, "value": 1, "mergeStrategy": "replace", "expectedVersion": version}

    replies = await asyncio.gather(
        first.call("config/value/write", write("tui.b")), second.call("config/value/write", write("tui.c"))
    )
    assert sorted("result" in reply for reply in replies) == [False, True]
    (lost,) = [reply for reply in replies if "error" in reply]
    assert lost["error"]["data"] == {"config_write_error_code": "configVersionConflict"}
    table = (_home(app) / "config.toml").read_text()
    assert ("b = 1" in table) != ("c = 1" in table)


async def test_hooks_list_reports_a_configured_hook_untrusted_until_its_hash_is_recorded(
    app: App, connect: Connect, workdir: Path
) -> None:
    client = await connect()
    hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre", "timeout": 5}]}
    await client.request(
        "config/value/write",
        {"keyPath": "hooks", "value": {"PreToolUse": [hook]}, "mergeStrategy": "replace"},
    )
    (entry,) = (await client.request("hooks/list", {"cwds": [str(workdir)]}))["data"]
    (listed,) = entry["hooks"]
    path = str(_home(app) / "config.toml")
    assert listed["key"] == f"{path}:pre_tool_use:0:0"
    assert (listed["eventName"], listed["command"], listed["matcher"], listed["timeoutSec"]) == (
        "preToolUse",
        "echo pre",
        "Bash",
        5,
    )
    assert listed["trustStatus"] == "untrusted" and listed["sourcePath"] == path
    assert (listed["source"], listed["enabled"], listed["async"]) == ("user", True, False)
    assert entry["warnings"] == []
    # Trusted as Codex records it: the hook's current hash under `hooks.state."<key>"`.
    state = {listed["key"]: {"trusted_hash": listed["currentHash"]}}
    edit = {"keyPath": "hooks.state", "value": state, "mergeStrategy": "upsert"}
    await client.request("config/batchWrite", {"edits": [edit]})
    (entry,) = (await client.request("hooks/list", {"cwds": [str(workdir)]}))["data"]
    assert entry["hooks"][0]["trustStatus"] == "trusted"
