"""How `tether exec` reads stdin: the prompt, piped context, and a stdin that never closes.

The `<stdin>` block format is what `codex exec` 0.169.0 sends upstream for a prompt argument plus
piped text. Unlike Codex, which waits for the end of stdin, exec never hangs on a stdin that
stays open: it goes on once stdin has been silent for a bounded time.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.support.exec_run import EXEC_WAIT_S, Finished, git_repo, run_exec, start_exec
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _last_user_text(fake: FakeResponsesServer) -> str:
    user = [i for i in fake.requests[-1].body["input"] if i.get("role") == "user"]
    return str(user[-1]["content"][-1]["text"])


async def test_without_a_prompt_argument_the_prompt_is_read_from_stdin_as_is(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("one"), script.text_reply("two"))
    done = await run_exec(fake_model.base_url, tmp_path / "home", "--cd", str(repo), stdin="stdin prompt\n")
    assert done.code == 0, done.stderr
    assert _last_user_text(fake_model) == "stdin prompt\n"
    assert "Reading prompt from stdin..." in done.stderr
    dash = await run_exec(fake_model.base_url, tmp_path / "home", "--cd", str(repo), "-", stdin="dash prompt")
    assert dash.code == 0, dash.stderr
    assert _last_user_text(fake_model) == "dash prompt"


async def test_an_empty_stdin_is_no_prompt_and_exits_1(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    done = await run_exec(fake_model.base_url, tmp_path / "home", "--cd", str(repo), "-", stdin="  \n")
    assert done.code == 1
    assert "No prompt provided via stdin." in done.stderr
    assert not fake_model.requests


async def test_piped_text_with_a_prompt_argument_is_appended_as_a_stdin_block(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("a"), script.text_reply("b"), script.text_reply("c"))
    home = tmp_path / "home"
    done = await run_exec(fake_model.base_url, home, "--cd", str(repo), "Review", stdin="diff here\n")
    assert done.code == 0, done.stderr
    assert _last_user_text(fake_model) == "Review\n\n<stdin>\ndiff here\n</stdin>"
    await run_exec(fake_model.base_url, home, "--cd", str(repo), "Review", stdin="no newline")
    assert _last_user_text(fake_model) == "Review\n\n<stdin>\nno newline\n</stdin>"
    await run_exec(fake_model.base_url, home, "--cd", str(repo), "Review", stdin=" \n\n")
    assert _last_user_text(fake_model) == "Review"


async def _with_open_stdin(
    fake: FakeResponsesServer, home: Path, repo: Path, *args: str, write: str = "", idle: str | None = None
) -> tuple[Finished, float]:
    env = {"TETHER_EXEC_STDIN_IDLE_SECONDS": idle} if idle else None
    started = time.monotonic()
    proc = await start_exec(fake.base_url, home, "--cd", str(repo), *args, env=env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    if write:
        proc.stdin.write(write.encode())
        await proc.stdin.drain()
    try:
        async with asyncio.timeout(EXEC_WAIT_S):
            out = await proc.stdout.read()
            err = await proc.stderr.read()
            await proc.wait()
    finally:
        proc.stdin.close()  # only now: stdin stayed open for the whole run
    assert proc.returncode is not None
    return Finished(proc.returncode, out.decode(), err.decode()), time.monotonic() - started


async def test_a_stdin_that_never_closes_does_not_hang_exec(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("Went on."))
    done, elapsed = await _with_open_stdin(fake_model, tmp_path / "home", repo, "Prompt")
    assert done.code == 0, done.stderr
    assert done.stdout == "Went on.\n"
    assert _last_user_text(fake_model) == "Prompt"
    assert "going on without waiting for its end" in done.stderr
    assert elapsed < EXEC_WAIT_S


async def test_text_piped_into_a_stdin_that_stays_open_is_still_used(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("Got it."), script.text_reply("And this."))
    home = tmp_path / "home"
    done, _ = await _with_open_stdin(fake_model, home, repo, "Prompt", write="partial\n", idle="1")
    assert done.code == 0, done.stderr
    assert _last_user_text(fake_model) == "Prompt\n\n<stdin>\npartial\n</stdin>"
    prompt_only, _ = await _with_open_stdin(fake_model, home, repo, write="the prompt\n", idle="1")
    assert prompt_only.code == 0, prompt_only.stderr
    assert _last_user_text(fake_model) == "the prompt\n"


async def test_no_prompt_and_a_silent_open_stdin_exits_1_instead_of_waiting(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    done, _ = await _with_open_stdin(fake_model, tmp_path / "home", repo, idle="1")
    assert done.code == 1
    assert "No prompt provided via stdin." in done.stderr
    assert not fake_model.requests
