"""A thread's `gitInfo` (sha, branch, origin URL), read from the repository's files.

Codex runs `git rev-parse HEAD`, `git rev-parse --abbrev-ref HEAD` and `git remote get-url origin`
in the thread's folder. Git run in a repository someone else prepared can run that repository's
programs (an fsmonitor hook, say), so the same three answers come from the files those commands
read instead: `HEAD`, the loose refs and `packed-refs`, and `config`. No process starts.

The repository decides what these names are, so every file is read as `safe_read` reads project
files: no final symlink, no FIFO, regular files only, a bounded prefix, and inside the git folder.
A `.git` that is a symlink must lead to a folder inside the project; as git does (safe.directory),
a repository owned by another user has no git info. What git would fail on gives None, as the
command's failure does in Codex; a folder without a valid HEAD is no repository (as for git), and
a repository where all three are unknown has no git info at all.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tether_server.safe_read import Refused, off_loop, read_prefix

HEAD_LIMIT = 4096
CONFIG_LIMIT = 1 << 20
PACKED_REFS_LIMIT = 64 << 20
MAX_SYMREF_DEPTH = 5
MAX_PARENTS = 64
_OID = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
_REF = re.compile(r"refs/[A-Za-z0-9._/+@-]+")
_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')


def git_info(cwd: str) -> dict[str, Any] | None:
    """`{"sha", "branch", "originUrl"}` for the repository holding `cwd`, or None (blocking)."""
    found = _find_git_dir(Path(cwd))
    if found is None:
        return None
    git_dir, common = found
    head = _text(git_dir / "HEAD", git_dir, HEAD_LIMIT)
    if head is None or not (head.startswith("ref:") or _OID.fullmatch(head.strip())):
        return None  # git does not take a folder without a valid HEAD for a repository
    sha, branch = _head(head.strip(), git_dir, common)
    url = _origin_url(common)
    if sha is None and branch is None and url is None:
        return None
    return {"sha": sha, "branch": branch, "originUrl": url}


async def git_info_off_loop(cwd: str) -> dict[str, Any] | None:
    """`git_info` on the safe-read pool: a hanging file system delays this thread only."""
    try:
        return await off_loop(git_info, cwd)
    except (TimeoutError, OSError, Refused, ValueError):
        return None


def _find_git_dir(start: Path) -> tuple[Path, Path] | None:
    """(git dir, common dir) of the innermost repository holding `start`."""
    folder = start
    for _ in range(MAX_PARENTS):
        dot_git = folder / ".git"
        if os.path.lexists(dot_git):
            return _open_dot_git(folder, dot_git)
        if folder.parent == folder:
            return None
        folder = folder.parent
    return None


def _open_dot_git(top: Path, dot_git: Path) -> tuple[Path, Path] | None:
    if dot_git.is_symlink():
        real = Path(os.path.realpath(dot_git))
        if not real.is_relative_to(os.path.realpath(top)):
            return None
        git_dir = real
    elif dot_git.is_dir():
        git_dir = dot_git
    else:
        # A worktree's or a submodule's `.git` file: "gitdir: <path>".
        text = _text(dot_git, top, HEAD_LIMIT, contained=True)
        if text is None or not text.startswith("gitdir:"):
            return None
        target = Path(text[len("gitdir:") :].strip())
        git_dir = target if target.is_absolute() else top / target
    if not git_dir.is_dir() or not _owned(top) or not _owned(git_dir):
        return None
    common = git_dir
    pointer = _text(git_dir / "commondir", git_dir, HEAD_LIMIT, contained=True)
    if pointer is not None:
        path = Path(pointer.strip())
        common = path if path.is_absolute() else git_dir / path
        if not common.is_dir() or not _owned(common):
            return None
    return git_dir, common


def _owned(path: Path) -> bool:
    try:
        return os.stat(path).st_uid == os.geteuid()
    except OSError:
        return False


def _head(head: str, git_dir: Path, common: Path) -> tuple[str | None, str | None]:
    if _OID.fullmatch(head):
        return head, None  # detached: `--abbrev-ref HEAD` prints "HEAD", which Codex drops
    if not head.startswith("ref:"):
        return None, None
    ref = head[len("ref:") :].strip()
    sha = _resolve(ref, git_dir, common)
    if sha is None:
        return None, None  # an unborn branch: both commands fail
    return sha, ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else ref


def _resolve(ref: str, git_dir: Path, common: Path) -> str | None:
    for _ in range(MAX_SYMREF_DEPTH):
        if not _REF.fullmatch(ref) or ".." in ref or "//" in ref:
            return None
        loose = _text(common / ref, common, HEAD_LIMIT)
        if loose is None:
            return _packed(ref, common)
        loose = loose.strip()
        if _OID.fullmatch(loose):
            return loose
        if not loose.startswith("ref:"):
            return None
        ref = loose[len("ref:") :].strip()
    return None


def _packed(ref: str, common: Path) -> str | None:
    text = _text(common / "packed-refs", common, PACKED_REFS_LIMIT)
    for line in (text or "").splitlines():
        oid, _, name = line.partition(" ")
        if name == ref and _OID.fullmatch(oid):
            return oid
    return None


def _origin_url(common: Path) -> str | None:
    """The first `url` of `[remote "origin"]` in the repository's own config."""
    text = _text(common / "config", common, CONFIG_LIMIT)
    if text is None:
        return None
    in_origin = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            match = _SECTION.match(line)
            in_origin = match is not None and (match.group(1).lower(), match.group(2)) == ("remote", "origin")
            line = line[match.end() :].strip() if match else ""
            if not line:
                continue
        if not in_origin:
            continue
        key, eq, value = line.partition("=")
        if eq and key.strip().lower() == "url":
            url = _config_value(value)
            if url:
                return url
    return None


def _config_value(value: str) -> str:
    """A config value without its comment and quotes (the common forms; no line continuations)."""
    out, quoted, escaped = [], False, False
    for ch in value.strip():
        if escaped:
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(ch, ch))
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
    return "".join(out).strip()


def _text(path: Path, root: Path, limit: int, *, contained: bool = True) -> str | None:
    try:
        return read_prefix(path, limit, root=root, contained=contained).decode("utf-8", "replace")
    except (OSError, Refused):
        return None
