"""How a thread is shown in the list."""

from __future__ import annotations

from tether_tui.screens.thread_list import thread_label


def test_a_row_shows_the_name_or_first_preview_line_its_age_and_directory() -> None:
    thread = {"id": "t1", "preview": "Fix the tests\nand more", "updatedAt": 1000, "cwd": "/repo"}
    assert thread_label(thread, now=1000 + 7200).plain == "Fix the tests  2h ago · /repo"
    assert thread_label(thread | {"name": "Named"}, now=1030).plain == "Named  just now · /repo"
