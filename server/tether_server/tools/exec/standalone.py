"""Standalone processes (`command/exec`): stdout and stderr on separate pipes (or one PTY), stdin only
on request, a byte cap per stream, a timeout, and killing the whole process group.

Unlike `process.LiveProcess` (the model's merged-output sessions) the bytes are kept as bytes: the
client receives them base64-encoded.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import signal
import struct
import subprocess
import termios
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tether_server import log
from tether_server.errors import InvalidRequest
from tether_server.tools.exec.process import SpawnError, set_parent_death_signal

Stream = Literal["stdout", "stderr"]
OutputListener = Callable[[Stream, bytes, bool], None]
"""(stream, chunk, cap_reached) for every chunk read while streaming."""

DEFAULT_OUTPUT_CAP = 1024 * 1024
DEFAULT_TIMEOUT_MS = 10_000
TIMEOUT_EXIT_CODE = 124
DEFAULT_SIZE = (24, 80)
# After the main process exits: how long its output may take to arrive, and how long after killing
# what still holds the pipes open.
_EXIT_DRAIN_S = 0.25
_KILL_DRAIN_S = 2.0
_READ_CHUNK = 64 * 1024
_EOT = b"\x04"
_PR_SET_PDEATHSIG = 1

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
        self.fd: int | None = fd
        self.cap = cap
        self.listener = listener
        self.kept = bytearray()
        self.seen = 0
        self.cap_reached = False
        self.eof = asyncio.Event()
        os.set_blocking(fd, False)
        asyncio.get_running_loop().add_reader(fd, self._on_readable)

    def _on_readable(self) -> None:
        assert self.fd is not None
        try:
            data = os.read(self.fd, _READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:
            # A PTY master reports EIO once every slave end is closed: its end of file.
            if exc.errno != errno.EIO:
                _log.warning("standalone.read_failed", stream=self.name, error=str(exc))
            data = b""
        if not data:
            self.close()
            return
        self._feed(data)

    def _feed(self, data: bytes) -> None:
        if self.cap_reached:
            return  # keep draining so the child never blocks on a full pipe
        if self.cap is not None and self.seen + len(data) > self.cap:
            data = data[: self.cap - self.seen]
            self.cap_reached = True
        self.seen += len(data)
        if self.listener is not None:
            self.listener(self.name, data, self.cap_reached)
        else:
            self.kept += data

    def close(self) -> None:
        if self.fd is not None:
            asyncio.get_running_loop().remove_reader(self.fd)
            os.close(self.fd)
            self.fd = None
        self.eof.set()


def _prepare_child(tty: bool) -> Callable[[], None]:
    def prepare() -> None:  # pragma: no cover - runs in the forked child
        if tty:
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        _set_pdeathsig()

    return prepare


def _set_pdeathsig() -> None:  # pragma: no cover - runs in the forked child
    # Loaded before the fork: nothing in a preexec function may spawn processes or import.
    set_parent_death_signal()


def _set_size(fd: int, size: tuple[int, int]) -> None:
    try:
        packed = struct.pack("HHHH", size[0], size[1], 0, 0)
    except struct.error as exc:
        raise SpawnError(f"terminal size {size[0]}x{size[1]} is out of range") from exc
    fcntl.ioctl(fd, termios.TIOCSWINSZ, packed)


class StandaloneProcess:
    """A running `command/exec` process. Create with `spawn`, then `await wait()` exactly once."""

    def __init__(self, spec: StandaloneSpec, listener: OutputListener | None) -> None:
        self.spec = spec
        self._listener = listener
        self._stdin: int | None = None
        self._captures: list[_Capture] = []
        self._exited = asyncio.Event()
        self._pidfd: int | None = None
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
        proc._watch_exit()
        return proc

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def _popen(self, stdin: int, stdout: int, stderr: int) -> None:
        try:
            self.popen = subprocess.Popen(
                self.spec.argv,
                cwd=self.spec.cwd,
                env=dict(self.spec.env),
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
                pass_fds=self.spec.pass_fds,
                preexec_fn=_prepare_child(self.spec.tty),
            )
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            raise SpawnError(f"failed to spawn command: {exc}") from exc

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
        master, slave = os.openpty()
        try:
            _set_size(slave, self.spec.size or DEFAULT_SIZE)
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

    def _watch_exit(self) -> None:
        self._pidfd = os.pidfd_open(self.pid)
        asyncio.get_running_loop().add_reader(self._pidfd, self._on_exit_signalled)

    def _on_exit_signalled(self) -> None:
        assert self.popen is not None
        if self.popen.poll() is None:
            return
        if self._pidfd is not None:
            asyncio.get_running_loop().remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        self._exited.set()

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
                    await capture.eof.wait()
                return True
        return False

    def _release(self) -> None:
        for capture in self._captures:
            capture.close()
        if self._stdin is not None:
            os.close(self._stdin)
            self._stdin = None

    def kill(self) -> None:
        """SIGKILL the process group (a sandbox's PID namespace dies with it); `wait` reports it."""
        if not self._exited.is_set():
            self._kill_group()

    def _kill_group(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)

    async def write(self, data: bytes) -> None:
        """Send bytes to stdin, waiting for room rather than blocking the loop.

        Raises:
            InvalidRequest: stdin is not open for writing (not streamed, or already closed).
        """
        async with self._write_lock:
            fd = self._require_stdin()
            view = memoryview(data)
            while view and self._stdin is not None:
                try:
                    written = os.write(fd, view)
                except BlockingIOError:
                    await self._writable(fd)
                    continue
                except OSError as exc:
                    _log.info("standalone.write_failed", pid=self.pid, error=str(exc))
                    return
                view = view[written:]

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

    async def _writable(self, fd: int) -> None:
        loop = asyncio.get_running_loop()
        ready = loop.create_future()
        loop.add_writer(fd, ready.set_result, None)
        try:
            await ready
        finally:
            loop.remove_writer(fd)

    def resize(self, rows: int, cols: int) -> None:
        """Set the PTY size (the foreground process group gets SIGWINCH).

        Raises:
            InvalidRequest: the process has no PTY.
        """
        if not self.spec.tty:
            raise InvalidRequest("command/exec/resize requires a process started with tty: true")
        if self._stdin is not None:
            _set_size(self._stdin, (rows, cols))


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
