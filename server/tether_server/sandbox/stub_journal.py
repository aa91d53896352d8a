"""A durable record of the stubs and placeholders a daemon created, so a killed daemon's are removed.

Stub directories and startup-file placeholders (see `held_paths`) are removed by the last command
that holds them; a daemon that is SIGKILLed, crashes or loses power while a command runs never gets
there, and the user would find stray empty `.git`/`.codex` directories or a `~/.bash_profile` they
never wrote. So before creating any, the daemon writes (and fsyncs) one entry file into
`$TETHER_HOME/sandbox-stubs/` naming its pid, the pid's start time (a reused pid is not the same
process) and the paths; the entry goes when the last of them is released. At start, a daemon
removes what the entries of dead processes name, through the same checks as a release: a stub only
while still an empty directory, a placeholder only while its content is still the placeholder's.

The journal lives in the daemon's home, which sandboxed commands never see, so a command cannot
forge an entry to have the next daemon remove something of the user's.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tether_server import log

_log = log.get("tether.sandbox")

JOURNAL_DIR = "sandbox-stubs"

_lock = threading.Lock()
_dir: Path | None = None
_seq = itertools.count()


@dataclass
class Entry:
    """One entry file; `remaining` counts the paths of it not released yet."""

    file: Path
    remaining: int
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def drop_one(self) -> None:
        with self._lock:
            self.remaining -= 1
            last = self.remaining == 0
        if last:
            # Not fsynced: an entry that outlives its stubs only names paths already gone.
            with contextlib.suppress(OSError):
                self.file.unlink()


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot, None when no such process runs."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: count from its closing one.
    return stat[stat.rindex(")") + 2 :].split()[19]


_SELF = f"{os.getpid()}-{_start_time(os.getpid())}"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def record(kind: str, paths: Sequence[Path]) -> Entry | None:
    """Durably note that this process is about to create `paths`; None without a journal (a
    process that is not a daemon), with nothing to note, or when the home cannot take it."""
    with _lock:
        directory = _dir
    if directory is None or not paths:
        return None
    file = directory / f"{_SELF}-{next(_seq)}.json"
    body = json.dumps({"kind": kind, "paths": [str(p) for p in paths]}).encode()
    try:
        _make_dir(directory)
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, body)
            os.fsync(fd)
        finally:
            os.close(fd)
        _fsync_dir(directory)
    except OSError as exc:
        # A full or read-only home must not stop commands from running in their sandbox: the
        # cost is only that a crash now would leave these stubs behind, as before the journal.
        with contextlib.suppress(OSError):
            file.unlink()
        _log.warning("sandbox.stub_journal_failed", path=str(file), error=exc.strerror)
        return None
    return Entry(file, len(paths))


def _make_dir(directory: Path) -> None:
    """The journal's folder, made with the first entry: a daemon that never made a stub leaves
    nothing in its home."""
    try:
        directory.mkdir(mode=0o700)
    except FileExistsError:
        return
    _fsync_dir(directory.parent)


def open_journal(home: Path, removers: Mapping[str, Callable[[Path], None]]) -> None:
    """Journal this process's stubs in `home` from now on, after removing those of dead daemons
    that used the same home."""
    global _dir
    directory = home / JOURNAL_DIR
    try:
        if directory.is_dir():
            _sweep(directory, removers)
    except OSError as exc:
        # A read-only home still serves; what a killed daemon left there stays.
        _log.warning("sandbox.stub_journal_failed", path=str(directory), error=exc.strerror)
    with _lock:
        _dir = directory


def _sweep(directory: Path, removers: Mapping[str, Callable[[Path], None]]) -> None:
    for file in sorted(directory.iterdir()):
        pid, _, rest = file.name.partition("-")
        started = rest.partition("-")[0]
        if pid.isdigit() and _start_time(int(pid)) == started:
            continue  # a live daemon's (another one on this home, or this very process)
        try:
            entry = json.loads(file.read_bytes())
            remove = removers[entry["kind"]]
            paths = [Path(p) for p in entry["paths"]]
        except (OSError, ValueError, KeyError, TypeError):
            # Half-written: the daemon died before creating anything it names.
            paths, remove = [], None
        for path in paths:
            if remove is not None and path.is_absolute():
                remove(path)
        with contextlib.suppress(OSError):
            file.unlink()
        if paths:
            _log.info("sandbox.stubs_recovered", entry=file.name, paths=[str(p) for p in paths])
