"""`tether exec resume <id>|--last`: a later run continues a thread, as `codex exec resume` does."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.appserver import mock_provider_args
from tests.support.exec_run import git_repo, run_exec
from tests.support.exec_shapes import validate_stream
from tether_client import Client
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _conversation(fake: FakeResponsesServer) -> list[str]:
    """The user and assistant texts of the last model request."""
    texts = []
    for item in fake.requests[-1].body["input"]:
        if item.get("role") in ("user", "assistant"):
            texts += [
                c.get("text", "") for c in item["content"] if c.get("type") in ("input_text", "output_text")
            ]
    return [t for t in texts if not t.startswith("<")]


async def test_resume_by_id_and_by_last_continue_the_same_thread(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    home = tmp_path / "home"
    fake_model.add(script.text_reply("First."), script.text_reply("Second."), script.text_reply("Third."))
    first = await run_exec(fake_model.base_url, home, "--json", "--cd", str(repo), "first prompt")
    assert first.code == 0, first.stderr
    thread_id = first.events[0]["thread_id"]
    second = await run_exec(
        fake_model.base_url, home, "--json", "--cd", str(repo), "resume", thread_id, "second"
    )
    assert second.code == 0, second.stderr
    validate_stream(second.events)
    assert second.events[0] == {"type": "thread.started", "thread_id": thread_id}
    assert second.events[-2]["item"] == {"id": "item_0", "type": "agent_message", "text": "Second."}
    assert _conversation(fake_model) == ["first prompt", "First.", "second"]
    third = await run_exec(fake_model.base_url, home, "--cd", str(repo), "resume", "--last", "third")
    assert third.code == 0 and third.stdout == "Third.\n", third.stderr
    assert _conversation(fake_model) == ["first prompt", "First.", "second", "Second.", "third"]


async def test_resume_last_only_looks_in_this_directory_unless_all_is_given(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo, other = git_repo(tmp_path / "repo"), git_repo(tmp_path / "other")
    home = tmp_path / "home"
    fake_model.add(script.text_reply("Here."), script.text_reply("Found it."))
    assert (await run_exec(fake_model.base_url, home, "--cd", str(repo), "x")).code == 0
    nothing = await run_exec(fake_model.base_url, home, "--cd", str(other), "resume", "--last", "y")
    assert nothing.code == 1 and "no recorded thread to resume" in nothing.stderr
    found = await run_exec(fake_model.base_url, home, "--cd", str(other), "resume", "--last", "--all", "y")
    assert found.code == 0 and found.stdout == "Found it.\n", found.stderr


async def test_resume_takes_a_thread_name_and_its_prompt_from_stdin(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    home = tmp_path / "home"
    fake_model.add(script.text_reply("Named."), script.text_reply("Resumed by name."))
    first = await run_exec(fake_model.base_url, home, "--json", "--cd", str(repo), "x")
    thread_id = first.events[0]["thread_id"]
    command = [sys.executable, "-m", "tether_server", "app-server", *mock_provider_args(fake_model.base_url)]
    async with await Client.spawn(command, env={"TETHER_HOME": str(home)}) as client:
        await client.request_raw("thread/name/set", {"threadId": thread_id, "name": "nightly-ci"})
    done = await run_exec(
        fake_model.base_url, home, "--json", "--cd", str(repo), "resume", "nightly-ci", stdin="from stdin\n"
    )
    assert done.code == 0, done.stderr
    assert done.events[0]["thread_id"] == thread_id
    assert _conversation(fake_model)[-1] == "from stdin\n"
    missing = await run_exec(fake_model.base_url, home, "--cd", str(repo), "resume", "no-such-thread", "x")
    assert missing.code == 1 and "no-such-thread" in missing.stderr
