"""Patch text → hunks, following the lenient parser described in core.md §4.2."""

from __future__ import annotations

from collections.abc import Sequence

from tether_server.tools.apply_patch.model import (
    AddFile,
    DeleteFile,
    Hunk,
    PatchParseError,
    UpdateChunk,
    UpdateFile,
)

BEGIN_PATCH = "*** Begin Patch"
END_PATCH = "*** End Patch"
ADD_FILE = "*** Add File: "
DELETE_FILE = "*** Delete File: "
UPDATE_FILE = "*** Update File: "
MOVE_TO = "*** Move to: "
END_OF_FILE = "*** End of File"
EMPTY_CONTEXT = "@@"
CONTEXT_PREFIX = "@@ "
_HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"')
_FIRST_LINE_ERROR = "invalid patch: The first line of the patch must be '*** Begin Patch'"
_LAST_LINE_ERROR = "invalid patch: The last line of the patch must be '*** End Patch'"
_NO_LINES = "Update hunk does not contain any lines"


def _hunk_error(line_number: int, message: str) -> PatchParseError:
    return PatchParseError(f"invalid hunk at line {line_number}, {message}")


def _split_lines(text: str) -> list[str]:
    # Mirrors Rust's str::lines(): "\n" separators, a trailing "\r" dropped, no final empty line.
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def parse_patch(text: str) -> list[Hunk]:
    """Parse a patch into hunks.

    Args:
        text: the whole patch, `*** Begin Patch` … `*** End Patch`, optionally wrapped in a
            `<<'EOF'` … `EOF` heredoc.

    Returns:
        The hunks in patch order; empty when the patch has no operations (callers reject that
        as `patch rejected: empty patch`).

    Raises:
        PatchParseError: with the exact texts of core.md §4.2.
    """
    lines = _strip_boundaries(_split_lines(text.strip()))
    hunks: list[Hunk] = []
    remaining = lines[1:-1]
    line_number = 2
    while remaining:
        hunk, used = _parse_one_hunk(remaining, line_number)
        hunks.append(hunk)
        line_number += used
        remaining = remaining[used:]
    return hunks


def _check_boundaries(lines: Sequence[str]) -> str | None:
    if not lines or lines[0].strip() != BEGIN_PATCH:
        return _FIRST_LINE_ERROR
    if lines[-1].strip() != END_PATCH:
        return _LAST_LINE_ERROR
    return None


def _strip_boundaries(lines: list[str]) -> list[str]:
    error = _check_boundaries(lines)
    if error is None:
        return lines
    wrapped = len(lines) >= 4 and lines[0] in _HEREDOC_OPENERS and lines[-1].endswith("EOF")
    if not wrapped:
        raise PatchParseError(error)
    inner = lines[1:-1]
    inner_error = _check_boundaries(inner)
    if inner_error is not None:
        raise PatchParseError(inner_error)
    return inner


def _parse_one_hunk(lines: Sequence[str], line_number: int) -> tuple[Hunk, int]:
    header = lines[0].strip()
    if header.startswith(ADD_FILE):
        return _parse_add(header.removeprefix(ADD_FILE), lines)
    if header.startswith(DELETE_FILE):
        return DeleteFile(header.removeprefix(DELETE_FILE)), 1
    if header.startswith(UPDATE_FILE):
        return _parse_update(header.removeprefix(UPDATE_FILE), lines, line_number)
    raise _hunk_error(
        line_number,
        f"'{header}' is not a valid hunk header. Valid hunk headers: '*** Add File: {{path}}', "
        "'*** Delete File: {path}', '*** Update File: {path}'",
    )


def _parse_add(path: str, lines: Sequence[str]) -> tuple[Hunk, int]:
    contents: list[str] = []
    for line in lines[1:]:
        if not line.startswith("+"):
            break
        contents.append(line[1:] + "\n")
    return AddFile(path, "".join(contents)), 1 + len(contents)


def _parse_update(path: str, lines: Sequence[str], line_number: int) -> tuple[Hunk, int]:
    used = 1
    move_path = None
    if len(lines) > 1 and lines[1].startswith(MOVE_TO):
        move_path = lines[1].removeprefix(MOVE_TO)
        used += 1
    chunks: list[UpdateChunk] = []
    while used < len(lines):
        line = lines[used]
        if not line.strip():
            used += 1
            continue
        if line.startswith("*"):
            break
        chunk, chunk_lines = _parse_chunk(lines[used:], line_number + used, allow_missing_context=not chunks)
        chunks.append(chunk)
        used += chunk_lines
    if not chunks:
        raise _hunk_error(line_number, f"Update file hunk for path '{path}' is empty")
    return UpdateFile(path, move_path, tuple(chunks)), used


def _chunk_header(first: str, line_number: int, allow_missing_context: bool) -> tuple[str | None, int]:
    if first == EMPTY_CONTEXT:
        return None, 1
    if first.startswith(CONTEXT_PREFIX):
        return first.removeprefix(CONTEXT_PREFIX), 1
    if not allow_missing_context:
        raise _hunk_error(
            line_number, f"Expected update hunk to start with a @@ context marker, got: '{first}'"
        )
    return None, 0


def _parse_chunk(
    lines: Sequence[str], line_number: int, allow_missing_context: bool
) -> tuple[UpdateChunk, int]:
    context, start = _chunk_header(lines[0], line_number, allow_missing_context)
    if start >= len(lines):
        raise _hunk_error(line_number + 1, _NO_LINES)
    old: list[str] = []
    new: list[str] = []
    parsed = 0
    end_of_file = False
    for line in lines[start:]:
        if line == END_OF_FILE:
            if parsed == 0:
                raise _hunk_error(line_number + 1, _NO_LINES)
            end_of_file = True
            parsed += 1
            break
        if not _take_diff_line(line, old, new):
            if parsed == 0:
                raise _hunk_error(
                    line_number + 1,
                    f"Unexpected line found in update hunk: '{line}'. Every line should start with "
                    "' ' (context line), '+' (added line), or '-' (removed line)",
                )
            break
        parsed += 1
    return UpdateChunk(context, tuple(old), tuple(new), end_of_file), parsed + start


def _take_diff_line(line: str, old: list[str], new: list[str]) -> bool:
    """Append one diff line to the chunk; False when the line is not a diff line."""
    marker, rest = line[:1], line[1:]
    if marker in ("", " "):
        old.append(rest)
        new.append(rest)
    elif marker == "+":
        new.append(rest)
    elif marker == "-":
        old.append(rest)
    else:
        return False
    return True
