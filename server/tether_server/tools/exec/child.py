"""What every spawned command shares, whether the model's session (`process`) or a client's
`command/exec` (`standalone`): starting it in its own session (optionally on a PTY), reading a
descriptor from the event loop, noticing its exit, writing without blocking, and its process group.

A live process costs its output descriptors and a pidfd, and no thread. Where the kernel refuses
a pidfd (older than 5.3, or a container's seccomp profile that denies `pidfd_open`), exit is
polled instead: the command still runs and its exit is still reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import fcntl
import os
import signal
import struct
import subprocess
import termios
from collections.abc import Callable, Mapping
from pathlib import Path

from tether_server import log
from tether_server.errors import TetherError
from tether_server.sandbox.bwrap import dies_with_parent

READ_CHUNK = 64 * 1024
DEFAULT_SIZE = (24, 80)
POLL_S = 0.02
_PR_SET_PDEATHSIG = 1

_log = log.get(__name__)
# The running interpreter already links libc: no `find_library` (it spawns ldconfig, ~25 ms at import).
_LIBC = ctypes.CDLL(None, use_errno=True)


class SpawnError(TetherError):
    """The command could not be started (missing program, bad working directory …)."""


def set_parent_death_signal() -> None:  # pragma: no cover - runs in forked children
    """Die with the daemon rather than linger as an orphan if it crashes."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


# An ignored signal stays ignored across exec: a daemon started as a background job of a script
# has SIGINT and SIGQUIT ignored, one started by nohup SIGHUP, and every command would inherit
# that (Ctrl-C in a terminal session would do nothing). Commands start as a terminal starts them.
_DEFAULT_SIGNALS = (
    signal.SIGINT,
    signal.SIGQUIT,
    signal.SIGHUP,
    signal.SIGTERM,
    signal.SIGTSTP,
    signal.SIGTTIN,
    signal.SIGTTOU,
)


def _prepare_child() -> None:  # pragma: no cover - runs in the forked child
    # Loaded before the fork: nothing in a preexec function may spawn processes or import.
    set_parent_death_signal()
    for number in _DEFAULT_SIGNALS:
        signal.signal(number, signal.SIG_DFL)


def _prepare_child_pty() -> None:  # pragma: no cover - runs in the forked child
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    _prepare_child()


def start(
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str],
    stdio: tuple[int, int, int],
    *,
    tty: bool,
    pass_fds: tuple[int, ...] = (),
) -> subprocess.Popen[bytes]:
    """Start `argv` in a new session on the given (stdin, stdout, stderr); with `tty`, stdin is the
    PTY slave and becomes the controlling terminal.

    Raises:
        SpawnError: the program or directory does not exist or cannot be executed, or a NUL in
            argv or env.
    """
    stdin, stdout, stderr = stdio
    try:
        return subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            pass_fds=pass_fds,
            preexec_fn=_preexec(argv, tty),
        )
    except (OSError, ValueError, subprocess.SubprocessError) as exc:  # ValueError: a NUL in argv or env
        raise SpawnError(str(exc)) from exc


def _preexec(argv: list[str], tty: bool) -> Callable[[], None] | None:
    """What the child must run before exec, or None when nothing: then CPython spawns with vfork.

    A preexec function makes CPython fork the whole daemon (page tables of 100+ MB), 15 to 25 ms
    a command on a busy machine, against 2 to 4 with vfork. A sandboxed command needs none: bwrap
    kills the sandbox when the daemon dies (`--die-with-parent`), and `setsid` and the signals
    CPython restores (SIGPIPE) need no Python. Signals the daemon ignores still need resetting.
    """
    if tty:
        return _prepare_child_pty
    if dies_with_parent(argv) and not any(signal.getsignal(n) == signal.SIG_IGN for n in _DEFAULT_SIGNALS):
        return None
    return _prepare_child


def set_size(fd: int, size: tuple[int, int]) -> None:
    """Set a PTY's (rows, cols).

    Raises:
        SpawnError: the size does not fit the kernel's 16-bit fields.
    """
    try:
        packed = struct.pack("HHHH", size[0], size[1], 0, 0)
    except struct.error as exc:
        raise SpawnError(f"terminal size {size[0]}x{size[1]} is out of range") from exc
    fcntl.ioctl(fd, termios.TIOCSWINSZ, packed)


def open_pty(size: tuple[int, int] = DEFAULT_SIZE) -> tuple[int, int]:
    """A (master, slave) pair sized `size`; both are closed again when the size is refused."""
    master, slave = os.openpty()
    try:
        set_size(slave, size)
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    return master, slave


class FdReader:
    """Reads a non-blocking descriptor from the loop, handing each chunk to `on_data`; end of file is
    an empty chunk, then `eof` is set.

    A PTY master reports EIO once every slave end is closed: that is its end of file. The
    descriptor stays open after end of file (a PTY master still takes input); `close` releases it.
    """

    def __init__(self, fd: int, on_data: Callable[[bytes], None], *, label: str) -> None:
        self.fd: int | None = fd
        self._on_data = on_data
        self._label = label
        self._reading = True
        self.eof = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        os.set_blocking(fd, False)
        self._loop.add_reader(fd, self._on_readable)

    def _on_readable(self) -> None:
        assert self.fd is not None
        try:
            data = os.read(self.fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno != errno.EIO:
                _log.warning("exec.read_failed", stream=self._label, error=str(exc))
            data = b""
        self._on_data(data)
        if not data:
            self._stop_reading()
            self.eof.set()

    def _stop_reading(self) -> None:
        if self._reading and self.fd is not None:
            self._loop.remove_reader(self.fd)
        self._reading = False

    def close(self) -> None:
        """Stop reading and close the descriptor; idempotent. End of file is set."""
        self._stop_reading()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self.eof.set()


class ExitWatch:
    """Sets `exited` once `popen` has exited and been reaped: through a pidfd, or polling without one."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.exited = asyncio.Event()
        self._popen = popen
        self._loop = asyncio.get_running_loop()
        self._pidfd: int | None = None
        self._poller: asyncio.Task[None] | None = None
        try:
            self._pidfd = os.pidfd_open(popen.pid)
        except (AttributeError, OSError) as exc:
            _log.info("exec.pidfd_unavailable", pid=popen.pid, error=str(exc))
            self._poller = self._loop.create_task(self._poll())
            return
        self._loop.add_reader(self._pidfd, self._on_signalled)

    def _on_signalled(self) -> None:
        if self._popen.poll() is None:
            return
        self._drop_pidfd()
        self.exited.set()

    async def _poll(self) -> None:
        # Nothing else signals a child's exit without a thread or a SIGCHLD handler.
        while self._popen.poll() is None:  # noqa: ASYNC110
            await asyncio.sleep(POLL_S)
        self.exited.set()

    def _drop_pidfd(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    def close(self) -> None:
        """Stop watching (the pidfd is closed, the poller cancelled); idempotent."""
        self._drop_pidfd()
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None


async def write_all(fd: int, data: bytes, still_open: Callable[[], bool]) -> OSError | None:
    """Write `data` to the non-blocking `fd`, waiting for room rather than blocking the loop.

    Stops early once `still_open()` is false; returns the error that ended the write, if any
    (the reader is gone: the caller logs it, the process's exit is reported elsewhere).
    """
    view = memoryview(data)
    while view and still_open():
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            await _writable(fd)
            continue
        except OSError as exc:
            return exc
        view = view[written:]
    return None


async def _writable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_writer(fd, ready.set_result, None)
    try:
        await ready
    finally:
        loop.remove_writer(fd)


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send `sig` to process group `pgid`; a group already gone is not an error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_has_live_members(pgid: int) -> bool:
    """Whether any non-zombie process still belongs to process group `pgid` (Linux /proc scan)."""
    if not _group_signalable(pgid):
        return False  # the common case: nothing left, no need to scan every process on the host
    try:
        entries = os.listdir("/proc")
    except OSError:
        return _group_signalable(pgid)
    return any(entry.isdigit() and _stat_is_live_member(entry, pgid) for entry in entries)


def _stat_is_live_member(pid: str, pgid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return False
    # Fields after the command name: state, ppid, pgrp, …
    return len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X")


def _group_signalable(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
