"""Whether patch targets stay inside the writable roots (core.md §5.5)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

OUTSIDE_ROOTS_REASON = "writing outside of the project; rejected by user approval settings"


def _within(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def is_writable(path: Path, roots: Sequence[Path]) -> bool:
    """True when `path` lies under a root both lexically (`..` folded) and after following symlinks."""
    lexical = Path(os.path.normpath(path))
    lexical_roots = [Path(os.path.normpath(root)) for root in roots]
    if not _within(lexical, lexical_roots):
        return False
    resolved_roots = [root.resolve() for root in roots]
    return _within(lexical.resolve(), resolved_roots)


def paths_outside(paths: Iterable[Path], roots: Sequence[Path]) -> list[Path]:
    """The given absolute paths that are not writable under `roots`, in order, without repeats."""
    outside: list[Path] = []
    for path in paths:
        if path not in outside and not is_writable(path, roots):
            outside.append(path)
    return outside
