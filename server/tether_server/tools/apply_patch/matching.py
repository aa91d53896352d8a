"""Finding a run of lines in a file, tolerating whitespace and typographic drift (core.md §4.3).

Models often retype code with trailing spaces dropped or with "smart" punctuation, so a
strict match would fail on patches whose intent is unambiguous. Each pass is stricter than
the next; the first pass that finds the sequence wins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

_PUNCTUATION = {
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
}
_TRANSLATION = str.maketrans(_PUNCTUATION)


def normalise(line: str) -> str:
    """Trim the line and map typographic dashes, quotes and spaces to their ASCII forms."""
    return line.strip().translate(_TRANSLATION)


_PASSES: tuple[Callable[[str], str], ...] = (
    lambda s: s,
    str.rstrip,
    str.strip,
    normalise,
)


def seek_sequence(lines: Sequence[str], pattern: Sequence[str], start: int, eof: bool) -> int | None:
    """Return the index of the first occurrence of `pattern` in `lines` at or after `start`.

    Args:
        lines: the file's lines (no newlines).
        pattern: the lines to find.
        start: the first index to consider.
        eof: the pattern must sit at the end of the file, so only that position is tried first.

    Returns:
        The start index of the match, or None.
    """
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    first = len(lines) - len(pattern) if eof else start
    for transform in _PASSES:
        wanted = [transform(p) for p in pattern]
        for i in range(first, len(lines) - len(pattern) + 1):
            if all(transform(lines[i + j]) == w for j, w in enumerate(wanted)):
                return i
    return None
