"""thread/resume applies its overrides and thread/fork inherits the source's, as Codex 0.169.0 does.

Observed on the real binary against the fake model (issue 25): a resume that loads a stored thread
answers with, runs its next turn with, and stores the overridden model, approval policy, sandbox,
cwd, service tier and (through `config`) reasoning effort; a later plain resume, in another daemon,
keeps them. The base instructions override lasts while the thread stays loaded. A resume of a
thread the server already runs ignores the overrides. A fork keeps the source's folder, approval
policy and sandbox (the model and the rest come from the config), its name, and answers with its
turns and their items.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient, RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

OVERRIDES: dict[str, Any] = {
    "model": "resumed-model",
    "approvalPolicy": "never",
    "sandbox": "danger-full-access",
    "serviceTier": "flex",
    "baseInstructions": "BASE-R",
    "config": {"model_reasoning_effort": "low"},
}


async def _turn(server: RpcClient, thread_id: str, text: str, **overrides: Any) -> dict[str, Any]:
    mark = server.mark()
    params = {"threadId": thread_id, "input": [{"type": "text", "text": text}], **overrides}
    await server.request("turn/start", params)
    done = await server.notification("turn/completed", after=mark)
    turn: dict[str, Any] = done["params"]["turn"]
    return turn


async def _stored_thread(start_app: StartApp, home: Path, workdir: Path, **params: Any) -> str:
    """A thread with one turn, in a daemon that is then closed."""
    server = await start_app(home=home)
    started = await server.request("thread/start", {"cwd": str(workdir), **params})
    tid = str(started["thread"]["id"])
    await _turn(server, tid, "first")
    assert await server.close() == 0
    return tid


def _settings(answer: dict[str, Any]) -> dict[str, Any]:
    keys = ("model", "approvalPolicy", "sandbox", "cwd", "serviceTier", "reasoningEffort")
    return {key: answer[key] for key in keys}


async def test_a_resume_that_loads_a_thread_applies_its_overrides_and_a_later_plain_resume_keeps_them(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(*(script.text_reply(f"r{i}") for i in range(3)))
    home, other = tmp_path / "home", tmp_path / "other"
    other.mkdir()
    tid = await _stored_thread(start_app, home, workdir)

    server = await start_app(home=home)
    resumed = await server.request(
        "thread/resume", {"threadId": tid, "cwd": str(other), "excludeTurns": True, **OVERRIDES}
    )
    expected = {
        "model": "resumed-model",
        "approvalPolicy": "never",
        "sandbox": {"type": "dangerFullAccess"},
        "cwd": str(other),
        "serviceTier": "flex",
        "reasoningEffort": "low",
    }
    assert _settings(resumed) == expected
    thread = resumed["thread"]
    assert (thread["model"], thread["cwd"], thread["reasoningEffort"]) == ("resumed-model", str(other), "low")
    # Codex leaves a thread it already runs as it is: a second resume's overrides are ignored.
    rejoined = await server.request(
        "thread/resume",
        {"threadId": tid, "model": "ignored", "approvalPolicy": "untrusted", "excludeTurns": True},
    )
    assert _settings(rejoined) == expected
    await _turn(server, tid, "second")
    body = fake_model.requests[-1].body
    assert (body["model"], body["reasoning"]["effort"], body["service_tier"]) == (
        "resumed-model",
        "low",
        "flex",
    )
    assert body["instructions"] == "BASE-R"
    listed = await server.request("thread/list", {})
    assert [(t["id"], t["model"]) for t in listed["data"]] == [(tid, "resumed-model")]
    assert await server.close() == 0

    again = await start_app(home=home)
    plain = await again.request("thread/resume", {"threadId": tid, "excludeTurns": True})
    assert _settings(plain) == expected
    await _turn(again, tid, "third")
    body = fake_model.requests[-1].body
    assert body["model"] == "resumed-model"
    # Codex keeps the base instructions the thread started with on disk.
    assert body["instructions"] != "BASE-R"


async def test_resume_overrides_are_stored_even_before_the_next_turn(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    home = tmp_path / "home"
    tid = await _stored_thread(start_app, home, workdir)
    server = await start_app(home=home)
    resumed = await server.request("thread/resume", {"threadId": tid, "approvalPolicy": "never"})
    assert (resumed["approvalPolicy"], resumed["sandbox"]["type"]) == ("never", "readOnly")
    assert await server.close() == 0

    again = await start_app(home=home)
    plain = await again.request("thread/resume", {"threadId": tid, "excludeTurns": True})
    assert (plain["approvalPolicy"], plain["sandbox"]["type"]) == ("never", "readOnly")


async def test_a_resume_with_a_bad_override_is_refused_and_changes_nothing(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    home = tmp_path / "home"
    tid = await _stored_thread(start_app, home, workdir)
    server = await start_app(home=home)
    for bad in ({"modelProvider": "nowhere", "model": "x"}, {"cwd": "relative/dir", "model": "x"}):
        try:
            await server.request("thread/resume", {"threadId": tid, **bad})
        except RpcErrorReply as exc:
            assert exc.code == -32600
        else:
            raise AssertionError(f"resume with {bad} was accepted")
    assert (await server.request("thread/loaded/list", {}))["data"] == []
    plain = await server.request("thread/resume", {"threadId": tid, "excludeTurns": True})
    assert (plain["model"], plain["cwd"]) == ("gpt-test", str(workdir))


async def test_a_fork_inherits_the_source_permissions_and_name_and_returns_its_turns_with_items(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    home = tmp_path / "home"
    server = await start_app(home=home)
    started = await server.request(
        "thread/start",
        {
            "cwd": str(workdir),
            "approvalPolicy": "never",
            "sandbox": "danger-full-access",
            "model": "src-model",
        },
    )
    tid = started["thread"]["id"]
    await _turn(server, tid, "first")
    await server.request("thread/name/set", {"threadId": tid, "name": "Source name"})

    fork = await server.request("thread/fork", {"threadId": tid})
    assert (fork["approvalPolicy"], fork["sandbox"], fork["cwd"]) == (
        "never",
        {"type": "dangerFullAccess"},
        str(workdir),
    )
    assert fork["model"] == "gpt-test"  # the model comes from the config, as in Codex
    thread = fork["thread"]
    assert (thread["name"], thread["forkedFromId"], thread["preview"]) == ("Source name", tid, "first")
    assert [(t["itemsView"], [i["type"] for i in t["items"]]) for t in thread["turns"]] == [
        ("full", ["userMessage", "agentMessage"])
    ]
    read = await server.request("thread/read", {"threadId": thread["id"]})
    assert read["thread"]["name"] == "Source name"

    overridden = await server.request(
        "thread/fork",
        {"threadId": tid, "approvalPolicy": "untrusted", "sandbox": "workspace-write", "excludeTurns": True},
    )
    assert (overridden["approvalPolicy"], overridden["sandbox"]["type"]) == ("untrusted", "workspaceWrite")
    assert overridden["thread"]["turns"] == []
    assert await server.close() == 0

    again = await start_app(home=home)  # a fork of a thread that is not loaded reads the stored settings
    cold = await again.request("thread/fork", {"threadId": tid, "excludeTurns": True})
    assert (cold["approvalPolicy"], cold["sandbox"]["type"], cold["thread"]["name"]) == (
        "never",
        "dangerFullAccess",
        "Source name",
    )


async def test_permissions_a_turn_changed_hold_for_a_fork_and_a_plain_resume_in_a_new_daemon(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    home = tmp_path / "home"
    server = await start_app(home=home)
    tid = str((await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"])
    await _turn(server, tid, "first", approvalPolicy="never", sandboxPolicy={"type": "dangerFullAccess"})
    fork = await server.request("thread/fork", {"threadId": tid, "excludeTurns": True})
    assert (fork["approvalPolicy"], fork["sandbox"]) == ("never", {"type": "dangerFullAccess"})
    assert await server.close() == 0
    again = await start_app(home=home)
    plain = await again.request("thread/resume", {"threadId": tid, "excludeTurns": True})
    assert (plain["approvalPolicy"], plain["sandbox"]) == ("never", {"type": "dangerFullAccess"})


async def test_an_ephemeral_fork_must_exclude_turns(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    server = await start_app()
    tid = str((await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"])
    await _turn(server, tid, "first")
    try:
        await server.request("thread/fork", {"threadId": tid, "ephemeral": True})
    except RpcErrorReply as exc:
        assert (exc.code, exc.message) == (
            -32600,
            "ephemeral paginated thread/fork requires `excludeTurns: true`",
        )
    else:
        raise AssertionError("an ephemeral fork with turns was accepted")
    fork = await server.request("thread/fork", {"threadId": tid, "ephemeral": True, "excludeTurns": True})
    assert fork["thread"]["ephemeral"] is True
