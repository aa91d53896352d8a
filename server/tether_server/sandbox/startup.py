"""Shell startup files of a `$HOME` that lies in a writable root: read-only in the sandbox.

A login shell (`bash -lc`, how commands run when `allow_login_shell` is on) reads `~/.profile`,
`~/.bash_profile`, `~/.bash_login` (and through them `~/.bashrc`); zsh reads `~/.zshenv` for every
shell. When the workspace holds `$HOME`, a sandboxed command could write one, and the next command
an allow rule runs *outside* the sandbox would execute it. Running those without a login shell
would cost users the `PATH` their profile sets, so the files are protected instead, like `.git`:

- an existing one is re-bound read-only (its content, so `PATH`, is unchanged);
- a missing one gets a placeholder for the time a command runs, bound read-only, so the command
  cannot create it. A placeholder does what the shell does without the file: `.bash_profile` and
  `.bash_login` hand over to the next file bash would read, the others are empty. It is removed
  when the last command using it ends, unless someone outside the sandbox changed it meanwhile.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from tether_server.sandbox.held_paths import HeldPaths

STARTUP_FILES: tuple[str, ...] = (
    ".profile",
    ".bash_profile",
    ".bash_login",
    ".bashrc",
    ".bash_aliases",  # Debian's and Ubuntu's default .bashrc source it
    ".bash_logout",
    ".zshenv",
    ".zprofile",
    ".zshrc",
    ".zlogin",
    ".zlogout",
)
_NOTE = "# Tether: a stand-in while a sandboxed command runs, so that it cannot create this file.\n"
_PLACEHOLDERS: dict[str, bytes] = {
    ".bash_profile": (
        _NOTE + "# It does what bash does without it.\n"
        'if [ -r "$HOME/.bash_login" ]; then . "$HOME/.bash_login"; '
        'elif [ -r "$HOME/.profile" ]; then . "$HOME/.profile"; fi\n'
    ).encode(),
    ".bash_login": (
        _NOTE + "# It does what bash does without it.\n"
        'if [ -r "$HOME/.profile" ]; then . "$HOME/.profile"; fi\n'
    ).encode(),
}


def placeholder_text(name: str) -> bytes:
    return _PLACEHOLDERS.get(name, _NOTE.encode())


def startup_files(
    homes: Iterable[Path], roots: Sequence[Path], hidden: Sequence[Path]
) -> tuple[list[Path], list[Path]]:
    """(existing startup files to bind read-only, missing ones to hold a placeholder for) of each
    home inside a writable root. An existing file that is a symlink is protected at its target
    when that lies in a writable root (elsewhere it is read-only anyway)."""
    existing: list[Path] = []
    missing: list[Path] = []
    for home in homes:
        real = Path(os.path.realpath(home))
        if not any(real.is_relative_to(r) for r in roots) or any(real.is_relative_to(h) for h in hidden):
            continue
        for name in STARTUP_FILES:
            path = real / name
            if is_placeholder(path):
                missing.append(path)
            elif path.is_symlink():
                target = Path(os.path.realpath(path))
                if target.is_file() and any(target.is_relative_to(r) for r in roots):
                    existing.append(target)
            elif path.is_file():
                existing.append(path)
            elif not path.exists():
                missing.append(path)
    return existing, missing


def _create(path: Path) -> bool:
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            fd = os.open(
                path.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=dir_fd
            )
        except FileExistsError:
            return False  # created meanwhile: then it is a file like any other, and not ours
        with os.fdopen(fd, "wb") as out:
            out.write(placeholder_text(path.name))
        return True
    finally:
        os.close(dir_fd)


def _remove_if_unchanged(path: Path) -> None:
    # Also run at start for the placeholders of a killed daemon: its home may have changed since,
    # so nothing is followed (a symlinked parent, a symlink in the file's place) and only the very
    # file whose content was checked is unlinked.
    expected = placeholder_text(path.name)
    with contextlib.suppress(OSError):
        if os.path.realpath(path.parent) != str(path.parent):
            return
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
            try:
                opened = os.fstat(fd)
                content = os.read(fd, len(expected) + 1) if stat.S_ISREG(opened.st_mode) else b""
            finally:
                os.close(fd)
            now = os.stat(path.name, dir_fd=dir_fd, follow_symlinks=False)
            if content == expected and (now.st_dev, now.st_ino) == (opened.st_dev, opened.st_ino):
                os.unlink(path.name, dir_fd=dir_fd)
        finally:
            os.close(dir_fd)


_placeholders = HeldPaths("placeholder", _create, _remove_if_unchanged)
held = _placeholders
acquire = _placeholders.acquire
release = _placeholders.release


def is_placeholder(path: Path) -> bool:
    """True while `path` is a placeholder some prepared command of this process still holds."""
    return _placeholders.created_and_held(path)
