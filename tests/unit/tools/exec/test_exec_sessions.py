"""Running real commands through ProcessSessions: output, exit codes, sessions, stdin and killing."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tether_server.tools.exec import (
    ExecRequest,
    ExecResult,
    ProcessSessions,
    SpawnError,
    StdinClosedError,
    UnknownSessionError,
)

MODEL_TEXT = re.compile(
    r"Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\n"
    r"(Process exited with code -?\d+\n|Process running with session ID \d+\n)"
    r"Original token count: \d+\nOutput:\n"
)


@pytest.fixture
async def sessions() -> AsyncIterator[ProcessSessions]:
    registry = ProcessSessions()
    yield registry
    await registry.close()


def request(
    *argv: str, tty: bool = False, yield_ms: int = 10_000, max_tokens: int | None = None
) -> ExecRequest:
    return ExecRequest(
        argv=list(argv),
        cwd=Path.cwd(),
        env=dict(os.environ),
        tty=tty,
        yield_time_ms=yield_ms,
        max_output_tokens=max_tokens,
    )


def sh(script: str, *, yield_ms: int = 10_000) -> ExecRequest:
    return request("/bin/sh", "-c", script, yield_ms=yield_ms)


def is_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie waiting for a reaper."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def group_members(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry))
    return members


async def run(sessions: ProcessSessions, req: ExecRequest) -> tuple[ExecResult, list[str]]:
    chunks: list[str] = []
    async with asyncio.timeout(15):
        result = await sessions.exec_command(req, chunks.append)
    return result, chunks


async def test_echo_returns_its_output_and_exit_code_zero(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, sh("echo hi"))

    assert result.output == "hi\n"
    assert result.exit_code == 0
    assert result.session_id is None
    assert result.original_token_count == 1
    text = result.model_text()
    assert MODEL_TEXT.match(text)
    assert text.endswith("Process exited with code 0\nOriginal token count: 1\nOutput:\nhi\n")


async def test_non_zero_exit_code_is_reported(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, sh("echo failing; exit 3"))

    assert result.exit_code == 3
    assert "Process exited with code 3\n" in result.model_text()


async def test_death_by_signal_is_reported_as_128_plus_the_signal(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, sh("kill -9 $$"))

    assert result.exit_code == 137


async def test_stdout_and_stderr_arrive_interleaved_in_order(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, sh("echo one; echo two >&2; echo three"))

    assert result.output == "one\ntwo\nthree\n"


async def test_output_is_streamed_to_the_callback_as_produced(sessions: ProcessSessions) -> None:
    result, chunks = await run(sessions, sh("echo one; echo two"))

    assert chunks
    assert "".join(chunks) == result.output == "one\ntwo\n"


async def test_multibyte_character_split_across_reads_is_decoded_whole(sessions: ProcessSessions) -> None:
    script = (
        "import sys, time; o = sys.stdout.buffer; o.write(b'\\xc3'); o.flush(); "
        "time.sleep(0.1); o.write(b'\\xa9!\\n'); o.flush()"
    )
    result, chunks = await run(sessions, request(sys.executable, "-c", script))

    assert result.output == "é!\n"
    assert all("\ufffd" not in chunk for chunk in chunks)


async def test_over_budget_output_is_truncated_for_the_model_only(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, request(sys.executable, "-c", "print('x' * 100000)", max_tokens=100))

    assert len(result.output) == 100_001
    assert result.original_token_count == 25_001
    text = result.model_text()
    body = text.split("Output:\n", 1)[1]
    assert body == "Total output lines: 1\n\n" + "x" * 200 + "…24901 tokens truncated…" + "x" * 199 + "\n"


async def test_long_running_tty_command_becomes_a_session_that_write_stdin_drives(
    sessions: ProcessSessions,
) -> None:
    script = "import sys; print('ready', flush=True); line = sys.stdin.readline(); print('got', line.strip())"
    first, _ = await run(sessions, request(sys.executable, "-c", script, tty=True, yield_ms=250))
    assert first.session_id is not None
    assert first.exit_code is None
    assert "ready" in first.output
    assert f"Process running with session ID {first.session_id}\n" in first.model_text()

    chunks: list[str] = []
    async with asyncio.timeout(15):
        second = await sessions.write_stdin(first.session_id, "ping\n", 5_000, None, chunks.append)

    assert "got ping" in second.output
    assert "".join(chunks) == second.output
    assert second.exit_code == 0
    assert second.session_id is None
    with pytest.raises(UnknownSessionError, match=f"Unknown process id {first.session_id}"):
        await sessions.write_stdin(first.session_id, "again\n", 250, None, None)


async def test_cat_in_a_tty_echoes_input_until_end_of_file(sessions: ProcessSessions) -> None:
    first, _ = await run(sessions, request("cat", tty=True, yield_ms=250))
    assert first.session_id is not None

    async with asyncio.timeout(15):
        echoed = await sessions.write_stdin(first.session_id, "hello\n", 300, None, None)
        finished = await sessions.write_stdin(first.session_id, "\x04", 5_000, None, None)

    assert echoed.session_id == first.session_id
    assert "hello" in echoed.output
    assert finished.exit_code == 0


async def test_running_session_waits_at_least_the_minimum_yield(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, request("sleep", "1000", yield_ms=0))

    assert result.session_id is not None
    assert result.wall_time_s >= 0.25


async def test_pipe_mode_stdin_is_at_end_of_file(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, request("cat"))

    assert result.exit_code == 0
    assert result.output == ""


async def test_writing_to_a_pipe_mode_session_is_refused(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, request("sleep", "1000", yield_ms=250))
    assert result.session_id is not None

    with pytest.raises(StdinClosedError):
        await sessions.write_stdin(result.session_id, "x", 250, None, None)


async def test_terminate_kills_the_session(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, request("sleep", "1000", yield_ms=250))
    assert result.session_id is not None

    await sessions.terminate(result.session_id)

    assert not is_alive(result.pid)
    with pytest.raises(UnknownSessionError):
        await sessions.terminate(result.session_id)


async def test_cancelling_the_call_kills_the_whole_process_tree(sessions: ProcessSessions) -> None:
    started = asyncio.Event()
    printed: list[str] = []

    def on_output(text: str) -> None:
        printed.append(text)
        if "\n" in "".join(printed):
            started.set()

    req = sh("sleep 1000 & echo $$ $!; sleep 1000")
    task = asyncio.create_task(sessions.exec_command(req, on_output))
    async with asyncio.timeout(15):
        await started.wait()
    leader, child = (int(pid) for pid in "".join(printed).split())
    assert is_alive(leader) and is_alive(child)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert not is_alive(leader)
    assert not is_alive(child)
    assert group_members(leader) == []


async def test_background_children_die_when_the_command_exits(sessions: ProcessSessions) -> None:
    result, _ = await run(sessions, sh("sleep 1000 & echo $!"))

    assert result.exit_code == 0
    assert not is_alive(int(result.output))


async def test_close_kills_every_running_session(sessions: ProcessSessions) -> None:
    first, _ = await run(sessions, sh("sleep 1000 & sleep 1000", yield_ms=250))
    second, _ = await run(sessions, request("cat", tty=True, yield_ms=250))
    assert first.session_id is not None and second.session_id is not None

    await sessions.close()

    assert group_members(first.pid) == []
    assert not is_alive(second.pid)
    assert len(sessions) == 0
    with pytest.raises(UnknownSessionError):
        await sessions.write_stdin(second.session_id, "x", 250, None, None)


async def test_starting_past_the_session_limit_kills_the_least_recently_used() -> None:
    registry = ProcessSessions(max_sessions=1)
    try:
        first, _ = await run(registry, request("sleep", "1000", yield_ms=250))
        second, _ = await run(registry, request("sleep", "1000", yield_ms=250))
    finally:
        await registry.close()

    assert first.session_id != second.session_id
    assert not is_alive(first.pid)


async def test_wrapper_rewrites_the_argv_before_spawning() -> None:
    def wrap(argv: list[str], cwd: Path) -> list[str]:
        return ["env", f"WRAPPED_IN={cwd}", *argv]

    registry = ProcessSessions(wrap=wrap)
    try:
        result, _ = await run(registry, sh('echo "$WRAPPED_IN"'))
    finally:
        await registry.close()

    assert result.output == f"{Path.cwd()}\n"


async def test_missing_program_fails_to_spawn(sessions: ProcessSessions) -> None:
    with pytest.raises(SpawnError):
        await sessions.exec_command(request("/nonexistent/program"), None)


async def test_missing_working_directory_fails_to_spawn(sessions: ProcessSessions, tmp_path: Path) -> None:
    req = ExecRequest(argv=["true"], cwd=tmp_path / "missing", env=dict(os.environ))

    with pytest.raises(SpawnError):
        await sessions.exec_command(req, None)


async def test_ctrl_c_written_to_a_tty_session_interrupts_the_program(sessions: ProcessSessions) -> None:
    first, _ = await run(sessions, request("cat", tty=True, yield_ms=250))
    assert first.session_id is not None

    result = await sessions.write_stdin(first.session_id, "\x03", 5_000, None, None)

    assert result.exit_code == 130
    assert result.session_id is None


async def test_ctrl_c_interrupts_a_program_started_by_a_daemon_that_ignores_it(
    sessions: ProcessSessions,
) -> None:
    # A daemon started as a background job of a script (`tether app-server &`) has SIGINT ignored.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        first, _ = await run(sessions, request("cat", tty=True, yield_ms=250))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert first.session_id is not None

    result = await sessions.write_stdin(first.session_id, "\x03", 5_000, None, None)

    assert result.exit_code == 130


async def test_session_that_exited_between_calls_reports_its_exit_on_the_next_poll(
    sessions: ProcessSessions,
) -> None:
    script = "import sys; sys.stdin.readline(); print('bye', flush=True); sys.exit(4)"
    first, _ = await run(sessions, request(sys.executable, "-c", script, tty=True, yield_ms=250))
    assert first.session_id is not None

    async with asyncio.timeout(15):
        written = await sessions.write_stdin(first.session_id, "go\n", 0, None, None)
        polled = written
        if written.exit_code is None:
            polled = await sessions.write_stdin(first.session_id, "", 5_000, None, None)

    assert polled.exit_code == 4
    assert "bye" in written.output + polled.output


async def test_close_during_a_call_ends_the_call_with_the_process_killed(sessions: ProcessSessions) -> None:
    started = asyncio.Event()
    task = asyncio.create_task(sessions.exec_command(sh("echo up; sleep 1000"), lambda _: started.set()))
    async with asyncio.timeout(15):
        await started.wait()
        await sessions.close()
        result = await task

    assert result.session_id is None
    assert result.exit_code == 128 + 15
    assert group_members(result.pid) == []
    assert len(sessions) == 0


async def test_processes_ignoring_sigterm_are_killed_after_the_grace_period(
    sessions: ProcessSessions,
) -> None:
    result, _ = await run(sessions, sh("trap '' TERM; sleep 1000 & sleep 1000", yield_ms=250))
    assert result.session_id is not None
    assert len(group_members(result.pid)) >= 2

    async with asyncio.timeout(15):
        await sessions.terminate(result.session_id)

    assert group_members(result.pid) == []
