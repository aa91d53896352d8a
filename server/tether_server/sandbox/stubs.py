"""Empty directories created as mount targets for missing protected paths, and their removal.

bwrap needs a mount target to exist. For a protected path that does not exist yet (cwd/.codex),
we create an empty directory ourselves (a direct child of a canonical root, so no symlink is
followed), cover it with a read-only tmpfs in the sandbox, and remove it when the last command
using it ends; otherwise a stray stub would linger in the user's workspace. Reference counts are
per daemon process, so concurrent commands in the same workspace share one stub.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from tether_server.sandbox.held_paths import HeldPaths


def _make(path: Path) -> bool:
    try:
        path.mkdir(mode=0o755)
    except FileExistsError:
        return False
    return True


def _remove(path: Path) -> None:
    # Left alone if someone outside the sandbox put files in it meanwhile (rmdir refuses), or
    # replaced it by a symlink or a file; also at start, for the stubs of a killed daemon, whose
    # parent must still be the canonical directory it was created in.
    with contextlib.suppress(OSError):
        if os.path.realpath(path.parent) != str(path.parent):
            return
        if stat.S_ISDIR(os.lstat(path).st_mode):
            path.rmdir()


_stubs = HeldPaths("stub", _make, _remove)
held = _stubs
acquire = _stubs.acquire
release = _stubs.release


def is_stub(path: Path) -> bool:
    """True while `path` is a stub some prepared command of this process still holds."""
    return _stubs.created_and_held(path)
