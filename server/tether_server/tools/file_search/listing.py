"""The paths under a root that a file search considers: what git would not ignore.

In a git work tree, `git ls-files --cached --others --exclude-standard` is the answer (and fast:
the index is already there). Elsewhere the tree is walked and every `.gitignore` on the way is
applied with a real gitignore matcher (`pathspec`), as git would. `.git` itself is never listed,
nor anything under `excluded` (the daemon's private paths).

A `.gitignore` is whatever the model or a cloned repository made of it: it is read by the
`safe_read` rules (a FIFO would otherwise hang the walk, a sparse giant fill the memory), its
first `MAX_IGNORE_BYTES` only. git itself opens a FIFO `.gitignore` and waits: `GIT_TIMEOUT_S`
bounds that, and the walk takes over.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from tether_server import safe_read

MAX_ENTRIES = 1_000_000
MAX_IGNORE_BYTES = 1024 * 1024
GIT_TIMEOUT_S = 20.0


class Cancelled(Exception):
    """The search was superseded; its result is no longer wanted."""


@dataclass
class Listing:
    """Relative posix paths of files and of the directories holding them."""

    files: list[str] = field(default_factory=list)
    directories: list[str] = field(default_factory=list)


def list_root(root: str, excluded: list[Path], cancelled: Callable[[], bool] = lambda: False) -> Listing:
    """Everything under `root` that is not ignored (at most `MAX_ENTRIES` files)."""
    files = _git_files(root)
    if files is None:
        files = _walk(root, excluded, cancelled)
    files = files[:MAX_ENTRIES]
    hidden = [os.path.relpath(p, root) for p in excluded if p.is_relative_to(root)]
    if hidden:
        files = [f for f in files if not any(f == h or f.startswith(h + "/") for h in hidden)]
    directories: set[str] = set()
    for path in files:
        cut = path.rfind("/")
        while cut > 0 and (parent := path[:cut]) not in directories:
            directories.add(parent)
            cut = parent.rfind("/")
    return Listing(files, sorted(directories))


def _git(root: str, *args: str) -> list[str] | None:
    # Defensive: no fsmonitor hook of the repository's choosing, no daemon secrets for git.
    env = {key: os.environ[key] for key in ("PATH", "HOME") if key in os.environ}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "-C", root, *args],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [n for n in done.stdout.decode("utf-8", "surrogateescape").split("\0") if n]


def _git_files(root: str) -> list[str] | None:
    inside = _git(root, "rev-parse", "-z", "--is-inside-work-tree")
    if inside is None or inside[0].strip() != "true":
        return None
    listed = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    deleted = _git(root, "ls-files", "-z", "--deleted")
    if listed is None or deleted is None:
        return None
    # The index still names files deleted since, and lists an unmerged path once per stage.
    gone = set(deleted)
    return [n for n in dict.fromkeys(listed) if n not in gone]


def _walk(root: str, excluded: list[Path], cancelled: Callable[[], bool]) -> list[str]:
    files: list[str] = []
    # Each entry: a directory (relative, "" for the root) and the ignore rules in force there,
    # as (base directory, spec) pairs from the root down.
    stack: list[tuple[str, list[tuple[str, pathspec.GitIgnoreSpec]]]] = [("", [])]
    while stack and len(files) < MAX_ENTRIES:
        if cancelled():
            raise Cancelled
        rel, rules = stack.pop()
        here = os.path.join(root, rel) if rel else root
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        own = _ignore_file(here, root, excluded)
        if own is not None:
            rules = [*rules, (rel, own)]
        for entry in entries:
            if entry.name == ".git":
                continue
            path = f"{rel}/{entry.name}" if rel else entry.name
            is_dir = entry.is_dir(follow_symlinks=False)
            if _ignored(path, is_dir, rules):
                continue
            if is_dir:
                stack.append((path, rules))
            else:
                files.append(path)
    return files


def _ignore_file(directory: str, root: str, excluded: list[Path]) -> pathspec.GitIgnoreSpec | None:
    path = Path(directory, ".gitignore")
    try:
        data = safe_read.read_prefix(path, MAX_IGNORE_BYTES, root=Path(root), private=excluded)
    except (OSError, safe_read.Refused):
        return None
    return pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", errors="replace").splitlines())


def _ignored(path: str, is_dir: bool, rules: list[tuple[str, pathspec.GitIgnoreSpec]]) -> bool:
    # Later (deeper) files override earlier ones, as in git: the last decisive rule wins.
    verdict = False
    for base, spec in rules:
        local = path[len(base) + 1 :] if base else path
        result = spec.check_file(local + "/" if is_dir else local)
        if result.include is not None:
            verdict = result.include
    return verdict
