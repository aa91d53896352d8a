"""The official Python SDK (`openai-codex`) on a Tether whose store is PostgreSQL.

One client run across two daemons with different homes on one database, the first stopped before
the second starts (as a fleet node restarted elsewhere): what the first wrote, the second lists,
resumes and continues. The other SDK tests run on SQLite; the wire is the same.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.appserver import mock_provider_args
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

pytest.importorskip("openai_codex")

from openai_codex import AsyncCodex, CodexConfig

# The SDK's close() leaves its subprocess pipes to the garbage collector (an SDK-side leak).
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


def _config(fake: FakeResponsesServer, home: Path, store: str) -> CodexConfig:
    argv = (sys.executable, "-m", "tether_server", "app-server", *mock_provider_args(fake.base_url))
    home.mkdir(parents=True, exist_ok=True)
    env = {"TETHER_HOME": str(home)}
    return CodexConfig(launch_args_override=(*argv, "--store", store), env=env, cwd=str(home))


async def test_the_sdk_continues_a_thread_on_another_daemon_of_the_same_database(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path, postgres_url: str
) -> None:
    fake_model.add(script.text_reply("Stored answer.", deltas=2), script.text_reply("Continued."))
    async with AsyncCodex(_config(fake_model, tmp_path / "first", postgres_url)) as codex:
        thread = await codex.thread_start(cwd=str(workdir))
        first = await thread.run("remember the harbour")
        await thread.set_name("Harbour")
        thread_id = thread.id
    assert first.final_response == "Stored answer."

    async with AsyncCodex(_config(fake_model, tmp_path / "second", postgres_url)) as codex:
        listed = await codex.thread_list(search_term="HARBOUR")
        assert [(t.id, t.name) for t in listed.data] == [(thread_id, "Harbour")]
        resumed = await codex.thread_resume(thread_id)
        second = await resumed.run("and now?")
        read = await resumed.read(include_turns=True)
    assert second.final_response == "Continued."
    assert [t.status.value for t in read.thread.turns] == ["completed", "completed"]
