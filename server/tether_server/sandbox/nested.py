"""Protected names (`.git`, `.codex`, `.agents`) below the top of a writable root.

A nested repository's `.git/config` is as dangerous as the top-level one: `core.fsmonitor`,
`filter.*.clean` and the hooks it names run under the next `git` anyone starts in it. So every one
that exists when a command starts is re-bound read-only too. Finding them walks the writable root,
which must not cost a command more than a few milliseconds: the walk is breadth-first (shallow
repositories first), never follows a symlink, never enters a protected directory (its contents are
covered by the mount) nor a hidden path, and stops at `MAX_DEPTH` levels and `MAX_DIRS` directories
per root. What lies past those bounds is not protected (docs/security.md, "nested repositories").
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from itertools import islice
from pathlib import Path

from tether_server.sandbox import dir_listings

MAX_DEPTH = 6
MAX_DIRS = 2048
# Each is a mount in the sandbox; past this many the rest stay writable (and are logged nowhere:
# a workspace with hundreds of nested repositories is vanishingly rare).
MAX_FOUND = 256


def nested_protected(
    root: Path,
    names: Sequence[str],
    *,
    roots: Sequence[Path],
    hidden: Sequence[Path],
    skip: Callable[[Path], bool] = lambda _: False,
) -> list[Path]:
    """Canonical paths of the protected entries strictly below `root` (not `root/<name>` itself).

    Args:
        root: a canonical writable root.
        names: the protected names.
        roots: every writable root; a symlinked entry is protected at its target when that lies
            in one of them (elsewhere it is read-only anyway).
        hidden: canonical hidden paths, never entered.
        skip: entries to leave out (the mount stubs this process made).
    """
    found: list[Path] = []
    # Plain strings, not Paths: the walk visits thousands of entries per command (a shared /tmp
    # is a writable root), and building a Path for each cost most of a command's start-up.
    hidden_dirs = tuple(str(h) for h in hidden)
    hidden_under = tuple(h.rstrip("/") + "/" for h in hidden_dirs)
    queue: deque[tuple[str, int]] = deque([(str(root), 0)])
    visited = 0
    listing = dir_listings.lister(names)
    while queue and visited < MAX_DIRS and len(found) < MAX_FOUND:
        directory, depth = queue.popleft()
        visited += 1
        seen = listing(directory)
        if seen is None:
            continue
        if depth > 0:
            for entry_path, is_symlink in seen.protected:
                path = Path(entry_path)
                if not skip(path):
                    found.extend(_protectable(path, is_symlink, roots))
        # Only the first MAX_DIRS directories in breadth-first order are ever visited: queueing
        # more (a shared /tmp has tens of thousands) would only cost time.
        room = MAX_DIRS - visited - len(queue)
        if depth + 1 < MAX_DEPTH and room > 0:
            subdirs = (sub for sub in seen.subdirs if not _hidden(sub, hidden_dirs, hidden_under))
            queue.extend((sub, depth + 1) for sub in islice(subdirs, room))
    return found[:MAX_FOUND]


def _hidden(path: str, hidden: tuple[str, ...], hidden_under: tuple[str, ...]) -> bool:
    return path in hidden or path.startswith(hidden_under)


def _protectable(path: Path, is_symlink: bool, roots: Sequence[Path]) -> list[Path]:
    if not is_symlink:
        return [path]
    target = Path(os.path.realpath(path))
    if target.exists() and any(target.is_relative_to(r) for r in roots):
        return [target]
    return []
