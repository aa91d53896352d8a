"""Computing a file's new contents from update chunks (core.md §4.3, `compute_replacements`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tether_server.tools.apply_patch.matching import seek_sequence
from tether_server.tools.apply_patch.model import PatchApplyError, UpdateChunk

Replacement = tuple[int, int, Sequence[str]]


def _file_lines(content: str) -> list[str]:
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _locate(lines: list[str], chunk: UpdateChunk, cursor: int, path: Path) -> Replacement:
    pattern: Sequence[str] = chunk.old_lines
    replacement: Sequence[str] = chunk.new_lines
    found = seek_sequence(lines, pattern, cursor, chunk.is_end_of_file)
    if found is None and pattern and pattern[-1] == "":
        # A blank line closing a chunk is usually the separator before the next one, not file content.
        pattern = pattern[:-1]
        if replacement and replacement[-1] == "":
            replacement = replacement[:-1]
        found = seek_sequence(lines, pattern, cursor, chunk.is_end_of_file)
    if found is None:
        old = "\n".join(chunk.old_lines)
        raise PatchApplyError(f"Failed to find expected lines in {path}:\n{old}")
    return found, len(pattern), replacement


def compute_replacements(lines: list[str], chunks: Sequence[UpdateChunk], path: Path) -> list[Replacement]:
    """Locate every chunk in `lines`, in order; raise PatchApplyError naming `path` if one is missing."""
    replacements: list[Replacement] = []
    cursor = 0
    for chunk in chunks:
        if chunk.change_context is not None:
            idx = seek_sequence(lines, [chunk.change_context], cursor, False)
            if idx is None:
                raise PatchApplyError(f"Failed to find context '{chunk.change_context}' in {path}")
            cursor = idx + 1
        if not chunk.old_lines:
            # Pure insertions go at the end of the file (before a trailing blank line), whatever
            # the context said.
            at_end = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
            replacements.append((at_end, 0, chunk.new_lines))
            continue
        replacement = _locate(lines, chunk, cursor, path)
        replacements.append(replacement)
        cursor = replacement[0] + replacement[1]
    return sorted(replacements, key=lambda r: r[0])


def apply_chunks(content: str, chunks: Sequence[UpdateChunk], path: Path) -> str:
    """Return `content` with `chunks` applied; the result always ends with a newline unless empty."""
    lines = _file_lines(content)
    for start, length, new in reversed(compute_replacements(lines, chunks, path)):
        lines[start : start + length] = new
    if not lines or lines[-1] != "":
        lines.append("")
    return "\n".join(lines)
