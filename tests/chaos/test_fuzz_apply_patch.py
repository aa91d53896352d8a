"""Grammar-based fuzzing of apply_patch input: the parser returns hunks or one of its error texts.

Patches are built from the grammar (heredoc wrapper, Add/Delete/Update hunks, Move to, @@ chunks,
End of File), then mutated line by line: dropped, repeated, swapped, re-prefixed, CRLF-ended,
or replaced by noise. An unmutated patch must parse back to the hunks it was built from.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.chaos.conftest import FULL, scale
from tether_server.tools.apply_patch.model import AddFile, DeleteFile, Hunk, PatchParseError, UpdateFile
from tether_server.tools.apply_patch.parser import parse_patch

EXAMPLES = scale(ci=200, full=50_000)
ERROR_TEXTS = re.compile(
    r"^(invalid patch: The (first|last) line of the patch must be '\*\*\* (Begin|End) Patch'"
    r"|invalid hunk at line \d+, .+)$",
    re.DOTALL,
)
PATHS = st.text(st.characters(blacklist_categories=["Cs", "Cc"]), min_size=1, max_size=20).filter(
    lambda p: p.strip() == p
)
BODY = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=["Cs"]), max_size=30)


@st.composite
def add_hunk(draw: st.DrawFn) -> tuple[list[str], Hunk]:
    path = draw(PATHS)
    body = draw(st.lists(BODY, max_size=5))
    return [f"*** Add File: {path}", *(f"+{b}" for b in body)], AddFile(path, "".join(f"{b}\n" for b in body))


@st.composite
def delete_hunk(draw: st.DrawFn) -> tuple[list[str], Hunk]:
    path = draw(PATHS)
    return [f"*** Delete File: {path}"], DeleteFile(path)


@st.composite
def update_hunk(draw: st.DrawFn) -> tuple[list[str], Hunk]:
    path = draw(PATHS)
    lines = [f"*** Update File: {path}"]
    move = draw(st.none() | PATHS)
    if move is not None:
        lines.append(f"*** Move to: {move}")
    for index in range(draw(st.integers(1, 3))):
        context = draw(st.none() | BODY.filter(lambda b: b.strip() == b and b != ""))
        lines.append("@@" if context is None else f"@@ {context}")
        for _ in range(draw(st.integers(1, 4))):
            marker = draw(st.sampled_from([" ", "+", "-"]))
            text = draw(BODY)
            lines.append(marker + (text.lstrip("*") if marker == " " else text))
        if index == 0 and draw(st.booleans()):
            lines.append("*** End of File")
            break
    return lines, UpdateFile(path, move, ())


@st.composite
def patch(draw: st.DrawFn) -> tuple[str, list[Hunk]]:
    built = draw(st.lists(st.one_of(add_hunk(), delete_hunk(), update_hunk()), max_size=4))
    lines = ["*** Begin Patch", *(line for hunk_lines, _ in built for line in hunk_lines), "*** End Patch"]
    if draw(st.booleans()):
        opener = draw(st.sampled_from(["<<EOF", "<<'EOF'", '<<"EOF"']))
        lines = [opener, *lines, "EOF"]
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"])), [hunk for _, hunk in built]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text, _ = draw(patch())
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines.append("")
        at = draw(st.integers(0, len(lines) - 1))
        op = draw(st.integers(0, 6))
        if op == 0:
            del lines[at]
        elif op == 1:
            lines.insert(at, lines[at])
        elif op == 2:
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif op == 3:
            lines[at] = draw(st.sampled_from(["", " ", "+", "-", "*", "@", "@@", "***"])) + lines[at][1:]
        elif op == 4:
            lines[at] += "\r"
        elif op == 5:
            lines[at] = draw(st.text(max_size=40))
        else:
            lines.insert(at, draw(st.sampled_from(["*** End of File", "*** Move to: x", "@@", "EOF"])))
    return "\n".join(lines)


FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=not FULL,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _parse_or_error_text(text: str) -> list[Hunk] | None:
    try:
        return parse_patch(text)
    except PatchParseError as exc:
        assert ERROR_TEXTS.match(str(exc)), f"not one of the parser's error texts: {exc}"
        return None


@FUZZ
@given(built=patch())
def test_a_patch_built_from_the_grammar_parses_back_to_its_hunks(built: tuple[str, list[Hunk]]) -> None:
    text, hunks = built
    parsed = parse_patch(text)
    assert [(type(h), h.path) for h in parsed] == [(type(h), h.path) for h in hunks]
    for got, want in zip(parsed, hunks, strict=True):
        if isinstance(want, AddFile):
            assert got == want
        if isinstance(want, UpdateFile):
            assert isinstance(got, UpdateFile) and got.move_path == want.move_path and got.chunks


@FUZZ
@given(text=mutated())
def test_a_mutated_patch_parses_or_fails_with_one_of_the_parser_error_texts(text: str) -> None:
    _parse_or_error_text(text)


@FUZZ
@given(text=st.text(max_size=400))
def test_arbitrary_text_parses_or_fails_with_one_of_the_parser_error_texts(text: str) -> None:
    _parse_or_error_text(text)
