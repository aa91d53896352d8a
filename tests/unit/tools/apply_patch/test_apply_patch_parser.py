"""The patch grammar: what parses into which hunks, and the exact error texts."""

from __future__ import annotations

import pytest

from tether_server.tools.apply_patch import (
    AddFile,
    DeleteFile,
    PatchParseError,
    UpdateChunk,
    UpdateFile,
    parse_patch,
)

HUNK_HEADERS = (
    "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
)
UNEXPECTED = "Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)"


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def parse_error(text: str) -> str:
    with pytest.raises(PatchParseError) as caught:
        parse_patch(text)
    return str(caught.value)


def test_add_file_collects_plus_lines_with_newlines() -> None:
    assert parse_patch(patch("*** Add File: a/b.txt", "+one", "+", "+three")) == [
        AddFile("a/b.txt", "one\n\nthree\n")
    ]


def test_add_file_with_no_lines_is_an_empty_file() -> None:
    assert parse_patch(patch("*** Add File: empty.txt")) == [AddFile("empty.txt", "")]


def test_delete_file_is_a_single_line() -> None:
    assert parse_patch(patch("*** Delete File: gone.txt")) == [DeleteFile("gone.txt")]


def test_update_with_move_and_context_header() -> None:
    hunks = parse_patch(
        patch(
            "*** Update File: src/a.py", "*** Move to: src/b.py", "@@ def f():", " x = 1", "-y = 2", "+y = 3"
        )
    )
    chunk = UpdateChunk("def f():", ("x = 1", "y = 2"), ("x = 1", "y = 3"))
    assert hunks == [UpdateFile("src/a.py", "src/b.py", (chunk,))]


def test_first_chunk_may_omit_the_context_marker() -> None:
    [hunk] = parse_patch(patch("*** Update File: a.txt", "-old", "+new"))
    assert isinstance(hunk, UpdateFile)
    assert hunk.chunks == (UpdateChunk(None, ("old",), ("new",)),)


def test_multiple_chunks_with_context_headers_and_end_of_file() -> None:
    [hunk] = parse_patch(
        patch("*** Update File: a.txt", "@@", "-a", "+A", "@@ tail", " y", "+z", "*** End of File")
    )
    assert isinstance(hunk, UpdateFile)
    assert hunk.chunks == (
        UpdateChunk(None, ("a",), ("A",)),
        UpdateChunk("tail", ("y",), ("y", "z"), is_end_of_file=True),
    )


def test_blank_line_after_a_chunk_becomes_trailing_empty_context() -> None:
    [hunk] = parse_patch(patch("*** Update File: a.txt", "@@", "-a", "+A", "", "@@", "-b", "+B"))
    assert isinstance(hunk, UpdateFile)
    assert hunk.chunks == (UpdateChunk(None, ("a", ""), ("A", "")), UpdateChunk(None, ("b",), ("B",)))


def test_whitespace_only_lines_between_hunk_header_and_chunk_are_skipped() -> None:
    [hunk] = parse_patch(patch("*** Update File: a.txt", "", "\t", "@@", "-a", "+A"))
    assert isinstance(hunk, UpdateFile)
    assert hunk.chunks == (UpdateChunk(None, ("a",), ("A",)),)


def test_empty_line_inside_a_chunk_is_an_empty_context_line() -> None:
    [hunk] = parse_patch(patch("*** Update File: a.txt", "@@", " a", "", "-b"))
    assert isinstance(hunk, UpdateFile)
    assert hunk.chunks[0].old_lines == ("a", "", "b")
    assert hunk.chunks[0].new_lines == ("a", "")


def test_several_hunks_in_order() -> None:
    hunks = parse_patch(
        patch(
            "*** Add File: n.txt", "+hi", "*** Delete File: d.txt", "*** Update File: u.txt", "@@", "-a", "+b"
        )
    )
    assert [type(h) for h in hunks] == [AddFile, DeleteFile, UpdateFile]


def test_surrounding_whitespace_and_crlf_are_tolerated() -> None:
    text = "\n  *** Begin Patch\r\n*** Add File: x.txt\r\n+hi\r\n*** End Patch  \n\n"
    assert parse_patch(text) == [AddFile("x.txt", "hi\n")]


@pytest.mark.parametrize("opener", ["<<EOF", "<<'EOF'", '<<"EOF"'])
def test_heredoc_wrapped_patch_is_accepted(opener: str) -> None:
    text = f"{opener}\n{patch('*** Add File: x.txt', '+hi')}\nEOF\n"
    assert parse_patch(text) == [AddFile("x.txt", "hi\n")]


def test_patch_with_no_hunks_parses_to_nothing() -> None:
    assert parse_patch("*** Begin Patch\n*** End Patch") == []


@pytest.mark.parametrize("text", ["", "hello", "*** Add File: x\n+a\n*** End Patch"])
def test_missing_begin_marker_is_rejected(text: str) -> None:
    assert parse_error(text) == "invalid patch: The first line of the patch must be '*** Begin Patch'"


def test_missing_end_marker_is_rejected() -> None:
    assert (
        parse_error("*** Begin Patch\n*** Add File: x\n+a")
        == "invalid patch: The last line of the patch must be '*** End Patch'"
    )


def test_heredoc_wrapper_around_a_bad_patch_reports_the_inner_error() -> None:
    text = "<<'EOF'\n*** Begin Patch\n*** Add File: x\n+a\nEOF"
    assert parse_error(text) == "invalid patch: The last line of the patch must be '*** End Patch'"


def test_invalid_hunk_header_names_its_line() -> None:
    text = patch("*** Add File: a.txt", "+x", "*** Frobnicate File: b.txt")
    assert parse_error(text) == (
        f"invalid hunk at line 4, '*** Frobnicate File: b.txt' is not a valid hunk header. {HUNK_HEADERS}"
    )


def test_update_without_chunks_is_empty() -> None:
    text = patch("*** Update File: a.txt", "*** Delete File: b.txt")
    assert parse_error(text) == "invalid hunk at line 2, Update file hunk for path 'a.txt' is empty"


def test_second_chunk_must_start_with_a_context_marker() -> None:
    text = patch("*** Update File: a.txt", "@@", "-a", "+b", "", "nonsense")
    assert parse_error(text) == (
        "invalid hunk at line 7, Expected update hunk to start with a @@ context marker, got: 'nonsense'"
    )


def test_context_marker_without_lines_is_rejected() -> None:
    text = patch("*** Update File: a.txt", "@@ def f():")
    assert parse_error(text) == "invalid hunk at line 4, Update hunk does not contain any lines"


def test_end_of_file_with_no_diff_lines_is_rejected() -> None:
    text = patch("*** Update File: a.txt", "@@", "*** End of File")
    assert parse_error(text) == "invalid hunk at line 4, Update hunk does not contain any lines"


def test_unexpected_first_line_of_a_chunk_is_rejected() -> None:
    text = patch("*** Update File: a.txt", "@@", "?what")
    assert (
        parse_error(text)
        == f"invalid hunk at line 4, Unexpected line found in update hunk: '?what'. {UNEXPECTED}"
    )
