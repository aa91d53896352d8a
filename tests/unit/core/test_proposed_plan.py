"""Splitting plan mode's `<proposed_plan>` block out of streamed assistant text."""

from __future__ import annotations

import pytest

from tether_server.core.proposed_plan import BlockSplitter, split


def _stream(pieces: list[str]) -> list[tuple[str, str]]:
    splitter = BlockSplitter()
    out = [segment for piece in pieces for segment in splitter.feed(piece)]
    return out + splitter.finish()


def test_a_tag_split_across_chunks_is_held_until_its_line_is_complete() -> None:
    pieces = ["Intro\n<pr", "oposed_pl", "an>\nstep", " one\n</proposed", "_plan>\nafter"]
    assert _stream(pieces) == [
        ("text", "Intro\n"),
        ("open", ""),
        ("plan", "step"),
        ("plan", " one\n"),
        ("close", ""),
        ("text", "after"),
    ]


def test_text_that_only_starts_like_a_tag_is_text() -> None:
    assert _stream(["<pro", "se>\n", "<proposed_plan> inline\n"]) == [
        ("text", "<prose>\n"),
        ("text", "<proposed_plan> inline\n"),
    ]


@pytest.mark.parametrize(
    ("text", "message", "plan"),
    [
        ("no plan here\n", "no plan here\n", None),
        ("<proposed_plan>\n- a\n</proposed_plan>", "", "- a\n"),
        ("x\n  <proposed_plan>  \n- a\n", "x\n", "- a\n"),  # never closed: the rest is the plan
        ("<proposed_plan>\n</proposed_plan>\n", "", ""),
    ],
)
def test_the_completed_texts(text: str, message: str, plan: str | None) -> None:
    assert split(text) == (message, plan)
