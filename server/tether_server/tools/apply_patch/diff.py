"""Unified diffs: the per-file hunks a `fileChange` carries and the git-style turn diff."""

from __future__ import annotations

import difflib
import hashlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

_ZERO_OID = "0" * 40
_NO_NEWLINE = "\\ No newline at end of file\n"
FILE_CHANGE_CONTEXT = 1
TURN_DIFF_CONTEXT = 3


def _range(start: int, length: int) -> str:
    # GNU/git convention: a one-line range omits its length, an empty range names the line before it.
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _emit(sign: str, line: str) -> str:
    return f"{sign}{line}" if line.endswith("\n") else f"{sign}{line}\n{_NO_NEWLINE}"


def _hunk_lines(group: list[tuple[str, int, int, int, int]], a: list[str], b: list[str]) -> Iterator[str]:
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            yield from (_emit(" ", line) for line in a[i1:i2])
            continue
        yield from (_emit("-", line) for line in a[i1:i2])
        yield from (_emit("+", line) for line in b[j1:j2])


def unified_diff(old: str, new: str, context: int = FILE_CHANGE_CONTEXT) -> str:
    """Return the `@@` hunks turning `old` into `new` (no file headers); "" when equal.

    Args:
        old: the original text.
        new: the changed text.
        context: unchanged lines shown around each change.
    """
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        old_range = _range(first[1], last[2] - first[1])
        new_range = _range(first[3], last[4] - first[3])
        out.append(f"@@ -{old_range} +{new_range} @@\n")
        out.extend(_hunk_lines(group, a, b))
    return "".join(out)


def git_blob_oid(text: str) -> str:
    """The object id git gives a blob holding `text` (UTF-8)."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _display(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


def _mode(path: Path) -> str:
    return "100755" if path.is_file() and os.access(path, os.X_OK) else "100644"


def _file_section(name: str, old: str | None, new: str | None, mode: str) -> str:
    header = [f"diff --git a/{name} b/{name}\n"]
    if old is None:
        header.append(f"new file mode {mode}\n")
    elif new is None:
        header.append(f"deleted file mode {mode}\n")
    old_oid = _ZERO_OID if old is None else git_blob_oid(old)
    new_oid = _ZERO_OID if new is None else git_blob_oid(new)
    header.append(f"index {old_oid}..{new_oid}\n")
    header.append("--- /dev/null\n" if old is None else f"--- a/{name}\n")
    header.append("+++ /dev/null\n" if new is None else f"+++ b/{name}\n")
    return "".join(header) + unified_diff(old or "", new or "", TURN_DIFF_CONTEXT)


def turn_diff(before: Mapping[Path, str | None], after: Mapping[Path, str | None], cwd: Path) -> str:
    """Git-style diff of every file a turn touched, for `turn/diff/updated`.

    Args:
        before: each touched absolute path's content when the turn first touched it (None: absent).
        after: the same paths' current content (None: deleted). Paths missing here are unchanged.
        cwd: paths under it are shown relative to it, others absolute.

    Returns:
        One `diff --git` section per changed file, sorted by shown path; "" when nothing changed.
    """
    sections: list[tuple[str, str]] = []
    for path in set(before) | set(after):
        old = before.get(path)
        new = after.get(path, old)
        if old == new:
            continue
        name = _display(path, cwd)
        sections.append((name, _file_section(name, old, new, _mode(path))))
    return "".join(section for _, section in sorted(sections))
