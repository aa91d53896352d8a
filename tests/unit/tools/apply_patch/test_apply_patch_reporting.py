"""What the model and client see: success summary, fileChange `changes`, and the turn diff.

Expected texts are the ones codex-cli 0.169.0 produced for the recorded apply_patch scenario
(README.md "# demo\\nold text\\n" updated, notes/new.txt added).
"""

from __future__ import annotations

from pathlib import Path

from tether_server.tools.apply_patch import (
    apply_planned,
    changes_to_wire,
    parse_patch,
    plan_patch,
    read_snapshot,
    summarize,
    touched_paths,
    turn_diff,
    unified_diff,
)

RECORDED_PATCH = (
    "*** Begin Patch\n*** Add File: notes/new.txt\n+first line\n+second line\n"
    "*** Update File: README.md\n@@\n # demo\n-old text\n+new text\n*** End Patch"
)
RECORDED_TURN_DIFF = (
    "diff --git a/README.md b/README.md\n"
    "index ce5f3c6f27b9b00ac36eed113b81423d9d24414a..79b4e2ca1a8660ce964084a392c4b32f5189a019\n"
    "--- a/README.md\n+++ b/README.md\n@@ -1,2 +1,2 @@\n # demo\n-old text\n+new text\n"
    "diff --git a/notes/new.txt b/notes/new.txt\nnew file mode 100644\n"
    "index 0000000000000000000000000000000000000000..06fcdd77c9348567c50638b30d406500f521c304\n"
    "--- /dev/null\n+++ b/notes/new.txt\n@@ -0,0 +1,2 @@\n+first line\n+second line\n"
)


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def recorded_workspace(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# demo\nold text\n")
    return tmp_path


def test_recorded_patch_summary_matches_codex(tmp_path: Path) -> None:
    changes = plan_patch(parse_patch(RECORDED_PATCH), recorded_workspace(tmp_path), [tmp_path])
    assert summarize(changes) == "Success. Updated the following files:\nA notes/new.txt\nM README.md\n"


def test_recorded_patch_file_changes_match_codex(tmp_path: Path) -> None:
    changes = plan_patch(parse_patch(RECORDED_PATCH), recorded_workspace(tmp_path), [tmp_path])
    assert changes_to_wire(changes, tmp_path) == [
        {
            "diff": "@@ -1,2 +1,2 @@\n # demo\n-old text\n+new text\n",
            "kind": {"move_path": None, "type": "update"},
            "path": f"{tmp_path}/README.md",
        },
        {"diff": "first line\nsecond line\n", "kind": {"type": "add"}, "path": f"{tmp_path}/notes/new.txt"},
    ]


def test_recorded_patch_turn_diff_matches_codex(tmp_path: Path) -> None:
    cwd = recorded_workspace(tmp_path)
    changes = plan_patch(parse_patch(RECORDED_PATCH), cwd, [cwd])
    apply_planned(changes)
    before = {c.path: c.old_content for c in changes}
    after = {p: p.read_text() for p in before}
    assert turn_diff(before, after, cwd) == RECORDED_TURN_DIFF


def test_summary_groups_added_then_modified_then_deleted_with_move_destinations(tmp_path: Path) -> None:
    for name in ("d.txt", "m.txt", "r.txt"):
        (tmp_path / name).write_text("a\n")
    text = patch(
        "*** Delete File: d.txt",
        "*** Update File: r.txt", "*** Move to: moved/r2.txt", "@@", "-a", "+b",
        "*** Add File: n.txt", "+x",
        "*** Update File: m.txt", "@@", "-a", "+c",
    )  # fmt: skip
    changes = plan_patch(parse_patch(text), tmp_path, None)
    assert summarize(changes) == (
        "Success. Updated the following files:\nA n.txt\nM moved/r2.txt\nM m.txt\nD d.txt\n"
    )


def test_wire_changes_for_delete_and_move(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("bye\n")
    (tmp_path / "r.txt").write_text("a\n")
    text = patch("*** Delete File: d.txt", "*** Update File: r.txt", "*** Move to: s.txt", "@@", "-a", "+b")
    changes = plan_patch(parse_patch(text), tmp_path, None)
    assert changes_to_wire(changes, tmp_path) == [
        {"path": f"{tmp_path}/d.txt", "kind": {"type": "delete"}, "diff": "bye\n"},
        {
            "path": f"{tmp_path}/r.txt",
            "kind": {"type": "update", "move_path": f"{tmp_path}/s.txt"},
            "diff": f"@@ -1 +1 @@\n-a\n+b\n\n\nMoved to: {tmp_path}/s.txt",
        },
    ]


def test_file_change_diff_uses_one_line_of_context() -> None:
    old = "".join(f"{i}\n" for i in range(10))
    new = old.replace("5\n", "five\n")
    assert unified_diff(old, new) == "@@ -5,3 +5,3 @@\n 4\n-5\n+five\n 6\n"


def test_diff_marks_a_missing_final_newline() -> None:
    assert unified_diff("a\nb", "a\nc\n") == "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"


def test_turn_diff_shows_deleted_files_and_skips_unchanged(tmp_path: Path) -> None:
    gone, same = tmp_path / "gone.txt", tmp_path / "same.txt"
    diff = turn_diff({gone: "x\n", same: "s\n"}, {gone: None, same: "s\n"}, tmp_path)
    assert diff == (
        "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n"
        "index 587be6b4c3f93f93c489c0111bba5596147a26cb..0000000000000000000000000000000000000000\n"
        "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    )


def test_turn_diff_uses_three_lines_of_context_and_is_empty_without_changes(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    old = "".join(f"{i}\n" for i in range(10))
    diff = turn_diff({path: old}, {path: old.replace("5\n", "five\n")}, tmp_path)
    assert diff.endswith("@@ -3,7 +3,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n")
    assert turn_diff({path: old}, {path: old}, tmp_path) == ""


def test_turn_diff_from_snapshots_shows_a_move_as_delete_plus_add(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("a\n")
    text = patch("*** Update File: old.txt", "*** Move to: new.txt", "@@", "-a", "+b")
    changes = plan_patch(parse_patch(text), tmp_path, None)
    before = read_snapshot(touched_paths(changes))
    apply_planned(changes)
    diff = turn_diff(before, read_snapshot(before), tmp_path)
    assert "diff --git a/new.txt b/new.txt\nnew file mode 100644\n" in diff
    assert diff.endswith("--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n")
