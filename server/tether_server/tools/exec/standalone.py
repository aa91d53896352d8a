"""Standalone processes (`command/exec`): stdout and stderr on separate pipes (or one PTY), stdin only
on request, a byte cap per stream, a timeout, and killing the whole process group.

Unlike `process.LiveProcess` (the model's merged-output sessions) the bytes are kept as bytes: the
client receives them base64-encoded. Spawning, reading and exit-watching are `child`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tether_server import log
from tether_server.errors import InvalidRequest
from tether_server.tools.exec import child
from tether_server.tools.exec.child import DEFAULT_SIZE, SpawnError

Stream = Literal["stdout", "stderr"]
OutputListener = Callable[[Stream, bytes, bool], None]
"""(stream, chunk, cap_reached) for every chunk read while streaming."""

DEFAULT_OUTPUT_CAP = 1024 * 1024
DEFAULT_TIMEOUT_MS = 10_000
TIMEOUT_EXIT_CODE = 124
# After the main process exits: how long its output may take to arrive, and how long after killing
# what still holds the pipes open.
_EXIT_DRAIN_S = 0.25
_KILL_DRAIN_S = 2.0
_EOT = b"\x04"

_log = log.get(__name__)


@dataclass(frozen=True)
class StandaloneSpec:
    """What to run and how.

    Attributes:
        argv: the program and arguments (already wrapped by the sandbox when needed).
        cwd: working directory.
        env: the complete environment.
        tty: run on a PTY; output is merged into `stdout`, stdin is the PTY.
        stdin_open: keep stdin writable (pipes mode); otherwise it is /dev/null.
        size: initial PTY (rows, cols).
        output_cap: bytes kept (or streamed) per stream; None for no cap.
        timeout_s: kill after this long (exit code 124); None for no timeout.
        pass_fds: descriptors the child inherits (sandbox seccomp program, status pipe).
    """

    argv: list[str]
    cwd: Path
    env: Mapping[str, str]
    tty: bool = False
    stdin_open: bool = False
    size: tuple[int, int] | None = None
    output_cap: int | None = DEFAULT_OUTPUT_CAP
    timeout_s: float | None = DEFAULT_TIMEOUT_MS / 1000
    pass_fds: tuple[int, ...] = ()


@dataclass(frozen=True)
class StandaloneResult:
    """How a process ended; `stdout`/`stderr` hold only what was not streamed."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    timed_out: bool


class _Capture:
    """One output stream: read from the loop, capped, then kept or handed to the listener."""

    def __init__(self, name: Stream, fd: int, cap: int | None, listener: OutputListener | None) -> None:
        self.name = name
        self.cap = cap
        self.listener = listener
        self.kept = bytearray()
        self.seen = 0
        self.cap_reached = False
        self.reader = child.FdReader(fd, self._feed, label=name)

    def _feed(self, data: bytes) -> None:
        if self.cap_reached or not data:
            return  # past the cap, keep draining so the child never blocks on a full pipe
        if self.cap is not None and self.seen + len(data) > self.cap:
            data = data[: self.cap - self.seen]
            self.cap_reached = True
        self.seen += len(data)
        if self.listener is not None:
            self.listener(self.name, data, self.cap_reached)
        else:
            self.kept += data


class StandaloneProcess:
    """A running `command/exec` process. Create with `spawn`, then `await wait()` exactly once."""

    def __init__(self, spec: StandaloneSpec, listener: OutputListener | None) -> None:
        self.spec = spec
        self._listener = listener
        self._stdin: int | None = None
        self._captures: list[_Capture] = []
        self._exit: child.ExitWatch | None = None
        self._write_lock = asyncio.Lock()
        self.popen: subprocess.Popen[bytes] | None = None

    @classmethod
    def spawn(cls, spec: StandaloneSpec, listener: OutputListener | None = None) -> StandaloneProcess:
        """Start the process in a new session; `listener` receives output instead of the result.

        Raises:
            SpawnError: the program or directory does not exist or cannot be executed.
        """
        proc = cls(spec, listener)
        if spec.tty:
            proc._spawn_tty()
        else:
            proc._spawn_pipes()
        assert proc.popen is not None
        proc._exit = child.ExitWatch(proc.popen)
        return proc

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    @property
    def _exited(self) -> asyncio.Event:
        assert self._exit is not None
        return self._exit.exited

    def _popen(self, stdin: int, stdout: int, stderr: int) -> None:
        spec = self.spec
        try:
            self.popen = child.start(
                spec.argv, spec.cwd, spec.env, (stdin, stdout, stderr), tty=spec.tty, pass_fds=spec.pass_fds
            )
        except SpawnError as exc:
            raise SpawnError(f"failed to spawn command: {exc.message}") from exc.__cause__

    def _spawn_pipes(self) -> None:
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        in_r, in_w = os.pipe2(os.O_CLOEXEC) if self.spec.stdin_open else (subprocess.DEVNULL, -1)
        try:
            self._popen(in_r, out_w, err_w)
        except SpawnError:
            for fd in (out_r, err_r, in_w):
                if fd >= 0:
                    os.close(fd)
            raise
        finally:
            for fd in (out_w, err_w, in_r):
                if fd >= 0:
                    os.close(fd)
        if in_w >= 0:
            os.set_blocking(in_w, False)
            self._stdin = in_w
        cap, listener = self.spec.output_cap, self._listener
        self._captures = [_Capture("stdout", out_r, cap, listener), _Capture("stderr", err_r, cap, listener)]

    def _spawn_tty(self) -> None:
        master, slave = child.open_pty(self.spec.size or DEFAULT_SIZE)
        try:
            self._popen(slave, slave, slave)
        except SpawnError:
            os.close(master)
            raise
        finally:
            os.close(slave)
        # A second descriptor of the master: input and resizing outlive the reader's end of file.
        self._stdin = os.dup(master)
        os.set_blocking(self._stdin, False)
        self._captures = [_Capture("stdout", master, self.spec.output_cap, self._listener)]

    async def wait(self) -> StandaloneResult:
        """Wait for exit (or the timeout), drain the output, and release every descriptor."""
        timed_out = False
        try:
            async with asyncio.timeout(self.spec.timeout_s):
                await self._exited.wait()
        except TimeoutError:
            timed_out = True
            self.kill()
            await self._exited.wait()
        if not await self._drained(_EXIT_DRAIN_S):
            # Something the command left behind still holds the output open.
            self._kill_group()
            await self._drained(_KILL_DRAIN_S)
        self._release()
        assert self.popen is not None and self.popen.returncode is not None
        code = self.popen.returncode
        exit_code = TIMEOUT_EXIT_CODE if timed_out else (128 - code if code < 0 else code)
        out = bytes(self._captures[0].kept)
        err = bytes(self._captures[1].kept) if len(self._captures) > 1 else b""
        return StandaloneResult(exit_code, out, err, timed_out)

    async def _drained(self, within_s: float) -> bool:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_s):
                for capture in self._captures:
                    await capture.reader.eof.wait()
                return True
        return False

    def _release(self) -> None:
        for capture in self._captures:
            capture.reader.close()
        if self._exit is not None:
            self._exit.close()
        if self._stdin is not None:
            os.close(self._stdin)
            self._stdin = None

    def kill(self) -> None:
        """SIGKILL the process group (a sandbox's PID namespace dies with it); `wait` reports it."""
        if not self._exited.is_set():
            self._kill_group()

    def _kill_group(self) -> None:
        child.signal_group(self.pid, signal.SIGKILL)

    async def write(self, data: bytes) -> None:
        """Send bytes to stdin, waiting for room rather than blocking the loop.

        Raises:
            InvalidRequest: stdin is not open for writing (not streamed, or already closed).
        """
        async with self._write_lock:
            fd = self._require_stdin()
            error = await child.write_all(fd, data, lambda: self._stdin is not None)
            if error is not None:
                _log.info("standalone.write_failed", pid=self.pid, error=str(error))

    async def close_stdin(self) -> None:
        """End of input: the pipe is closed; on a PTY an end-of-file character is sent."""
        if self.spec.tty:
            await self.write(_EOT)
            return
        async with self._write_lock:
            fd = self._require_stdin()
            os.close(fd)
            self._stdin = None

    def _require_stdin(self) -> int:
        if self._stdin is None:
            raise InvalidRequest("stdin is not open for this command/exec process")
        return self._stdin

    def cap_reached(self, stream: Stream) -> bool:
        """Whether `stream`'s output was cut at the cap."""
        return any(c.name == stream and c.cap_reached for c in self._captures)

    def resize(self, rows: int, cols: int) -> None:
        """Set the PTY size (the foreground process group gets SIGWINCH).

        Raises:
            InvalidRequest: the process has no PTY.
        """
        if not self.spec.tty:
            raise InvalidRequest("command/exec/resize requires a process started with tty: true")
        if self._stdin is not None:
            child.set_size(self._stdin, (rows, cols))


__all__ = [
    "DEFAULT_OUTPUT_CAP",
    "DEFAULT_TIMEOUT_MS",
    "TIMEOUT_EXIT_CODE",
    "OutputListener",
    "SpawnError",
    "StandaloneProcess",
    "StandaloneResult",
    "StandaloneSpec",
    "Stream",
]
