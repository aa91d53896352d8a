"""The per-thread registry of commands started by `exec_command` and still running after their yield.

Each call (`exec_command`, `write_stdin`) waits until its yield time has passed or the process has
exited, then returns what was printed meanwhile. A process still running gets a session id the model
passes to `write_stdin`; an exited one is reaped and its leftover process group killed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tether_server import log
from tether_server.errors import NotFound, TetherError
from tether_server.tools.exec.output import DEFAULT_MAX_OUTPUT_TOKENS, format_model_text
from tether_server.tools.exec.process import LiveProcess, OutputSink, spawn

ArgvWrapper = Callable[[list[str], Path], list[str]]

# Yield clamps of core.md §6.2.
EXEC_YIELD_MIN_MS, EXEC_YIELD_MAX_MS = 250, 30_000
WRITE_YIELD_MAX_MS = 30_000
POLL_YIELD_MIN_MS, POLL_YIELD_MAX_MS = 5_000, 300_000
FIRST_SESSION_ID = 1000

_logger = log.get(__name__)


class UnknownSessionError(NotFound):
    """`write_stdin` / terminate named a session that does not exist (or already exited)."""

    def __init__(self, session_id: int) -> None:
        super().__init__(f"Unknown process id {session_id}")
        self.session_id = session_id


class StdinClosedError(TetherError):
    """`write_stdin` sent characters to a command started without a TTY, whose stdin is /dev/null."""

    def __init__(self, session_id: int) -> None:
        super().__init__(
            f"stdin of session {session_id} is closed because it was started with tty=false; "
            "run the command again with tty=true to interact with it"
        )
        self.session_id = session_id


@dataclass(frozen=True)
class ExecRequest:
    """One `exec_command` call, already resolved to argv.

    Attributes:
        argv: the full command, usually from `build_shell_argv`.
        cwd: absolute working directory.
        env: the complete child environment.
        tty: run in a PTY so `write_stdin` can reach it.
        yield_time_ms: how long to wait for output before returning (clamped to [250, 30000]).
        max_output_tokens: model budget for this call's output; `None` means 10 000.
    """

    argv: list[str]
    cwd: Path
    env: Mapping[str, str]
    tty: bool = False
    yield_time_ms: int = 10_000
    max_output_tokens: int | None = None
    pass_fds: tuple[int, ...] = ()
    on_exit: Callable[[], None] | None = None
    label: str = ""
    item_id: str = ""


@dataclass(frozen=True)
class BackgroundSession:
    """A session still running after the call that started it returned (a background terminal).

    Attributes:
        session_id: the id the model passes to `write_stdin`.
        item_id: the commandExecution item that started it.
        command: the command as the model wrote it.
        cwd: where it runs.
        pid: the OS process id of its main process (the sandbox wrapper when sandboxed).
    """

    session_id: int
    item_id: str
    command: str
    cwd: str
    pid: int


@dataclass(frozen=True)
class ExecResult:
    """What one `exec_command` / `write_stdin` call observed.

    Attributes:
        session_id: set while the process is still running; pass it to `write_stdin`.
        exit_code: set once the process exited (128+N after death by signal N).
        output: everything read during this call, untruncated (middle dropped past 1 MiB).
        wall_time_s: how long the call took.
        original_token_count: estimated tokens of `output` before truncation.
        chunk_id: 6 random hex characters naming this chunk of output.
        pid: the OS process id of the command's main process.
        model_output: `output` truncated to the call's token budget.
    """

    session_id: int | None
    exit_code: int | None
    output: str
    wall_time_s: float
    original_token_count: int
    chunk_id: str
    pid: int
    model_output: str

    def model_text(self) -> str:
        """The function_call_output text for the model (core.md §3.3)."""
        return format_model_text(
            chunk_id=self.chunk_id,
            wall_time_s=self.wall_time_s,
            exit_code=self.exit_code,
            session_id=self.session_id,
            original_token_count=self.original_token_count,
            output=self.model_output,
        )


class ProcessSessions:
    """The live processes of one thread.

    Args:
        wrap: rewrites argv before spawning (the sandbox's `bwrap …` prefix); identity when `None`.
        max_sessions: live sessions kept; starting one more kills the least recently used.
    """

    def __init__(self, *, wrap: ArgvWrapper | None = None, max_sessions: int = 64) -> None:
        self._wrap = wrap
        self._max_sessions = max(1, max_sessions)
        self._sessions: dict[int, LiveProcess] = {}  # insertion order = least recently used first
        self._labels: dict[LiveProcess, tuple[str, str, str]] = {}  # item id, command, cwd
        self._running: set[LiveProcess] = set()
        self._next_id = FIRST_SESSION_ID

    def __len__(self) -> int:
        return len(self._sessions)

    def reserve_id(self) -> int:
        """A process id for a command about to start: it names the command's item from the start, and
        its session if the command outlives its yield time."""
        process_id = self._next_id
        self._next_id += 1
        return process_id

    async def exec_command(
        self, req: ExecRequest, on_output: OutputSink | None, process_id: int | None = None
    ) -> ExecResult:
        """Starts a command and waits for it to exit or for its yield time to pass.

        Args:
            req: the command.
            on_output: receives decoded text as it is produced (for outputDelta notifications).
            process_id: the id `reserve_id` gave it (a new one when None).

        Raises:
            SpawnError: the command could not be started.
            asyncio.CancelledError: after the process tree has been killed and reaped.
        """
        started = asyncio.get_running_loop().time()
        argv = self._wrap(list(req.argv), req.cwd) if self._wrap else list(req.argv)
        try:
            proc = spawn(argv, req.cwd, req.env, req.tty, pass_fds=req.pass_fds)
        except BaseException:
            if req.on_exit is not None:
                req.on_exit()
            raise
        proc.on_exit = req.on_exit
        self._running.add(proc)
        self._labels[proc] = (req.item_id, req.label, str(req.cwd))
        yield_ms = _clamp(req.yield_time_ms, EXEC_YIELD_MIN_MS, EXEC_YIELD_MAX_MS)
        return await self._collect(
            proc, None, started, yield_ms, req.max_output_tokens, on_output, reserved=process_id
        )

    async def write_stdin(
        self,
        session_id: int,
        chars: str,
        yield_time_ms: int,
        max_output_tokens: int | None,
        on_output: OutputSink | None,
    ) -> ExecResult:
        """Sends `chars` to a running session (empty = just poll) and returns what it printed since.

        Raises:
            UnknownSessionError: no such live session.
            StdinClosedError: characters sent to a session started without a TTY.
        """
        proc = self._sessions.get(session_id)
        if proc is None:
            raise UnknownSessionError(session_id)
        if chars and not proc.tty:
            raise StdinClosedError(session_id)
        self._sessions[session_id] = self._sessions.pop(session_id)  # mark as recently used
        started = asyncio.get_running_loop().time()
        if chars:
            yield_ms = _clamp(yield_time_ms, 0, WRITE_YIELD_MAX_MS)
            await self._write(proc, session_id, chars, started + yield_ms / 1000)
        else:
            yield_ms = _clamp(yield_time_ms, POLL_YIELD_MIN_MS, POLL_YIELD_MAX_MS)
        return await self._collect(proc, session_id, started, yield_ms, max_output_tokens, on_output)

    def background(self) -> list[BackgroundSession]:
        """The live sessions, oldest first (a session exited meanwhile is dropped on its next use)."""
        found = []
        for session_id in sorted(self._sessions):
            proc = self._sessions[session_id]
            if proc.exit_code is None:
                item_id, command, cwd = self._labels.get(proc, ("", "", ""))
                found.append(BackgroundSession(session_id, item_id, command, cwd, proc.pid))
        return found

    async def terminate(self, session_id: int) -> None:
        """Kills a session's process tree.

        Raises:
            UnknownSessionError: no such live session.
        """
        proc = self._sessions.get(session_id)
        if proc is None:
            raise UnknownSessionError(session_id)
        await self._discard(proc, session_id)

    async def clean(self) -> None:
        """Kills every session (the commands that outlived their call), not the calls still running."""
        await asyncio.gather(*(self._discard(proc, sid) for sid, proc in list(self._sessions.items())))

    async def close(self) -> None:
        """Kills every process tree this registry started (turn interrupt, thread unload)."""
        procs = list(self._running)
        self._sessions.clear()
        self._running.clear()
        self._labels.clear()
        await asyncio.gather(*(proc.kill_tree() for proc in procs))
        for proc in procs:
            proc.run_exit_hook()

    async def _collect(
        self,
        proc: LiveProcess,
        session_id: int | None,
        started: float,
        yield_ms: int,
        max_output_tokens: int | None,
        on_output: OutputSink | None,
        reserved: int | None = None,
    ) -> ExecResult:
        loop = asyncio.get_running_loop()
        try:
            collected = await proc.collect(started + yield_ms / 1000, on_output)
        except asyncio.CancelledError:
            await _run_to_completion(self._discard(proc, session_id))
            raise
        if proc.exit_code is not None or proc.closing:
            await self._discard(proc, session_id)
            session_id = None
        elif session_id is None:
            session_id = await self._register(proc, reserved)
        budget = DEFAULT_MAX_OUTPUT_TOKENS if max_output_tokens is None else max_output_tokens
        return ExecResult(
            session_id=session_id,
            exit_code=proc.exit_code,
            output=collected.text,
            wall_time_s=loop.time() - started,
            original_token_count=collected.token_count,
            chunk_id=secrets.token_hex(3),
            pid=proc.pid,
            model_output=collected.for_model(budget),
        )

    async def _write(self, proc: LiveProcess, session_id: int, chars: str, deadline: float) -> None:
        # A child that does not read its input must not hold the call beyond its yield time.
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(deadline):
                    await proc.write(chars)
        except asyncio.CancelledError:
            await _run_to_completion(self._discard(proc, session_id))
            raise

    async def _register(self, proc: LiveProcess, reserved: int | None) -> int:
        while len(self._sessions) >= self._max_sessions:
            victim_id = next((sid for sid, p in self._sessions.items() if p.exit_code is not None), None)
            victim_id = next(iter(self._sessions)) if victim_id is None else victim_id
            _logger.info("exec_session_pruned", session_id=victim_id)
            await self._discard(self._sessions[victim_id], victim_id)
        session_id = self.reserve_id() if reserved is None else reserved
        self._sessions[session_id] = proc
        return session_id

    async def _discard(self, proc: LiveProcess, session_id: int | None) -> None:
        if session_id is not None:
            self._sessions.pop(session_id, None)
        self._running.discard(proc)
        self._labels.pop(proc, None)
        await proc.kill_tree()
        proc.run_exit_hook()


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, int(value)))


async def _run_to_completion(cleanup: Awaitable[None]) -> None:
    """Awaits `cleanup` even if this task is cancelled again meanwhile (the kill must finish)."""
    task = asyncio.ensure_future(cleanup)
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            continue
    task.result()
