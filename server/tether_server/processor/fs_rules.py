"""The path rules every `fs/*` method and the fuzzy file search share.

The `fs/*` methods reach the daemon's host (not sandboxed by thread policy, like Codex), but they
stop at the daemon itself: never its own `/proc` entries (`/proc/self/environ` holds the provider
key) nor its private files (`$TETHER_HOME`: the database, sockets, tokens; the host paths the
sandbox hides). A path is checked after
resolving its symlinks, so a link planted elsewhere cannot lead into them, and a tree operation
(remove, copy) is refused when the tree holds a private path. File work runs on `file_jobs`.
"""

from __future__ import annotations

import os
from pathlib import Path

from tether_server.errors import InvalidParams, InvalidRequest
from tether_server.processor.state import ServerState
from tether_server.safe_read import own_proc_entry


def private_paths(state: ServerState) -> list[Path]:
    """The daemon's private paths (`$TETHER_HOME` and the host's hidden paths), resolved."""
    return [p.resolve() for p in state.private_paths]


def absolute(raw: str) -> str:
    """`raw` as a client path: no NUL byte, absolute (Codex's wording for a relative one)."""
    if "\0" in raw:
        raise InvalidParams("Invalid params: path contains a NUL byte")
    if not os.path.isabs(raw):
        raise InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
    return os.path.normpath(raw)


def refusal(path: str, private: list[Path], *, tree: bool = False) -> str | None:
    """Why `path` (already resolved) is off limits, or None; `tree` also refuses a path that
    contains a private one (removing or copying it would reach the private files)."""
    if own_proc_entry(path):
        return f"access denied: {path} is the server's own process information"
    target = Path(path)
    for p in private:
        if target.is_relative_to(p) or (tree and p.is_relative_to(target)):
            return f"access denied: {path} is private to the server"
    return None


def check(path: str, private: list[Path], *, tree: bool = False) -> None:
    """Raise `InvalidRequest` when `path` (already resolved) is off limits."""
    reason = refusal(path, private, tree=tree)
    if reason is not None:
        raise InvalidRequest(reason)


def resolved(path: str, private: list[Path], *, tree: bool = False) -> str:
    """`path` with every symlink resolved (missing tails kept as written), checked."""
    real = os.path.realpath(path)
    check(real, private, tree=tree)
    return real


def resolved_parent(path: str, private: list[Path], *, tree: bool = False) -> str:
    """`path` with its parent resolved but its last component kept: a symlink there is the entry
    itself (removed, replaced), never followed. Checked both ways."""
    parent, name = os.path.split(path)
    if not name:
        raise InvalidRequest(f"refusing to operate on the root directory: {path}")
    real = os.path.join(os.path.realpath(parent), name)
    check(real, private, tree=tree)
    return real


def check_fd(fd: int, private: list[Path]) -> None:
    """Check what an open descriptor really is (whatever was swapped in after the path check)."""
    check(os.readlink(f"/proc/self/fd/{fd}"), private)
