"""Locating a chunk's lines: exact first, then progressively looser comparisons."""

from __future__ import annotations

from tether_server.tools.apply_patch import seek_sequence


def test_exact_match_from_the_cursor() -> None:
    lines = ["a", "b", "a", "b"]
    assert seek_sequence(lines, ["a", "b"], 0, False) == 0
    assert seek_sequence(lines, ["a", "b"], 1, False) == 2


def test_empty_pattern_matches_at_the_cursor() -> None:
    assert seek_sequence(["a"], [], 1, False) == 1


def test_pattern_longer_than_file_is_not_found() -> None:
    assert seek_sequence(["a"], ["a", "b"], 0, False) is None


def test_trailing_whitespace_is_ignored_when_exact_fails() -> None:
    assert seek_sequence(["x", "foo   ", "bar\t"], ["foo", "bar"], 0, False) == 1


def test_leading_and_trailing_whitespace_is_ignored_when_needed() -> None:
    assert seek_sequence(["x", "    foo  "], ["foo"], 0, False) == 1


def test_exact_match_wins_over_an_earlier_loose_match() -> None:
    assert seek_sequence(["foo  ", "foo"], ["foo"], 0, False) == 1


def test_unicode_punctuation_matches_its_ascii_form() -> None:
    lines = ["print(\u201chello\u201d)  # it\u2019s \u2014 fine\u00a0x", "a \u2212 b"]
    assert seek_sequence(lines, ['print("hello")  # it\'s - fine x', "a - b"], 0, False) == 0


def test_end_of_file_pattern_only_matches_at_the_end() -> None:
    lines = ["end", "middle", "end"]
    assert seek_sequence(lines, ["end"], 0, True) == 2
    assert seek_sequence(["end", "other"], ["end"], 0, True) is None


def test_missing_lines_are_not_found() -> None:
    assert seek_sequence(["a", "b"], ["c"], 0, False) is None
