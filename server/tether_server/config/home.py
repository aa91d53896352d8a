"""`$TETHER_HOME` on disk: private to its owner (0700), its files 0600, never group/world-writable.

The home holds the thread database, the control socket, the WebSocket token and the rules; anyone
who can write into it can replace them, and anyone who can read it can read every conversation.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tether_server.errors import ConfigError

HOME_MODE = 0o700
FILE_MODE = 0o600


def prepare_home(home: Path) -> None:
    """Create `home` 0700, or check an existing one and take group/other access away from it.

    Raises:
        ConfigError: `home` is not a directory, or is group- or world-writable (someone else could
            have planted files in it, so it is not trusted at all).
    """
    try:
        home.mkdir(parents=True, exist_ok=True, mode=HOME_MODE)
        info = os.stat(home)
    except OSError as exc:
        raise ConfigError(f"cannot create TETHER_HOME {home}: {exc.strerror}", key="TETHER_HOME") from exc
    if not stat.S_ISDIR(info.st_mode):
        raise ConfigError(f"TETHER_HOME {home} is not a directory", key="TETHER_HOME")
    mode = stat.S_IMODE(info.st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ConfigError(
            f"refusing to start: TETHER_HOME {home} is group- or world-writable (mode {mode:04o}); "
            f"check its contents, then `chmod 700 {home}`",
            key="TETHER_HOME",
        )
    if mode & 0o077 and info.st_uid == os.geteuid():
        home.chmod(HOME_MODE)


def open_private(path: Path, flags: int = os.O_WRONLY | os.O_APPEND) -> int:
    """Open (creating it 0600) a file only its owner may read; an existing file is narrowed to 0600.

    `O_NOFOLLOW`: a symlink planted in its place is refused rather than followed.
    """
    fd = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
            os.fchmod(fd, FILE_MODE)
    except OSError:
        os.close(fd)
        raise
    return fd
