"""Applying patches to real files: results on disk, failure texts, all-or-nothing, writable roots."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.tools.apply_patch import (
    PatchApplyError,
    PatchOutsideRootsError,
    PlannedChange,
    apply_planned,
    parse_patch,
    plan_patch,
    verification_failed_text,
)


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def run(text: str, cwd: Path, roots: list[Path] | None = None) -> list[PlannedChange]:
    changes = plan_patch(parse_patch(text), cwd, roots)
    apply_planned(changes)
    return changes


def failure(text: str, cwd: Path, roots: list[Path] | None = None) -> str:
    with pytest.raises((PatchApplyError, PatchOutsideRootsError)) as caught:
        run(text, cwd, roots)
    return str(caught.value)


def test_add_creates_parent_directories(tmp_path: Path) -> None:
    run(patch("*** Add File: deep/er/new.txt", "+first line", "+second line"), tmp_path)
    assert (tmp_path / "deep/er/new.txt").read_text() == "first line\nsecond line\n"


def test_add_overwrites_an_existing_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old\n")
    run(patch("*** Add File: a.txt", "+new"), tmp_path)
    assert (tmp_path / "a.txt").read_text() == "new\n"


def test_delete_removes_the_file(tmp_path: Path) -> None:
    (tmp_path / "gone.txt").write_text("bye\n")
    run(patch("*** Delete File: gone.txt"), tmp_path)
    assert not (tmp_path / "gone.txt").exists()


def test_update_replaces_lines_and_keeps_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    x = 1\n    return x\n")
    run(patch("*** Update File: a.py", "@@ def f():", "-    x = 1", "+    x = 2"), tmp_path)
    assert (tmp_path / "a.py").read_text() == "def f():\n    x = 2\n    return x\n"


def test_update_always_leaves_a_trailing_newline(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo")
    run(patch("*** Update File: a.txt", "@@", "-two", "+2"), tmp_path)
    assert (tmp_path / "a.txt").read_text() == "one\n2\n"


def test_multiple_chunks_apply_in_one_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\nb\nc\nd\ne\nf\n")
    run(patch("*** Update File: a.txt", "@@", " a", "-b", "+B", "@@", " e", "-f", "+F"), tmp_path)
    assert (tmp_path / "a.txt").read_text() == "a\nB\nc\nd\ne\nF\n"


def test_context_header_disambiguates_repeated_lines(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    pass\ndef g():\n    pass\n")
    run(patch("*** Update File: a.py", "@@ def g():", "-    pass", "+    return 1"), tmp_path)
    assert (tmp_path / "a.py").read_text() == "def f():\n    pass\ndef g():\n    return 1\n"


def test_end_of_file_anchor_targets_the_last_occurrence(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\nmid\nx\n")
    run(patch("*** Update File: a.txt", "@@", "-x", "+last", "*** End of File"), tmp_path)
    assert (tmp_path / "a.txt").read_text() == "x\nmid\nlast\n"


def test_insert_only_chunk_appends_at_end_of_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\nb\n")
    run(patch("*** Update File: a.txt", "@@ a", "+appended"), tmp_path)
    assert (tmp_path / "a.txt").read_text() == "a\nb\nappended\n"


def test_trailing_blank_context_line_is_forgiven(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\nb\n")
    run(patch("*** Update File: a.txt", "@@", "-b", "+B", ""), tmp_path)
    assert (tmp_path / "a.txt").read_text() == "a\nB\n"


def test_fuzzy_match_applies_despite_whitespace_and_smart_quotes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("msg = \u201chi\u201d   \n")
    run(patch("*** Update File: a.py", "@@", '-msg = "hi"', "+msg = 'hi'"), tmp_path)
    assert (tmp_path / "a.py").read_text() == "msg = 'hi'\n"


def test_move_writes_destination_and_removes_original(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("a\nb\n")
    run(patch("*** Update File: old.txt", "*** Move to: sub/new.txt", "@@", "-a", "+A"), tmp_path)
    assert not (tmp_path / "old.txt").exists()
    assert (tmp_path / "sub/new.txt").read_text() == "A\nb\n"


def test_move_overwrites_an_existing_destination(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("a\n")
    (tmp_path / "new.txt").write_text("stale\n")
    run(patch("*** Update File: old.txt", "*** Move to: new.txt", "@@", "-a", "+A"), tmp_path)
    assert (tmp_path / "new.txt").read_text() == "A\n"


def test_hunks_on_the_same_file_compose(tmp_path: Path) -> None:
    run(patch("*** Add File: a.txt", "+one", "*** Update File: a.txt", "@@", "-one", "+two"), tmp_path)
    assert (tmp_path / "a.txt").read_text() == "two\n"


def test_crlf_files_match_and_rewritten_lines_take_the_patch_endings(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    run(patch("*** Update File: a.txt", "@@", " a", "-b", "+B"), tmp_path)
    assert (tmp_path / "a.txt").read_bytes() == b"a\nB\nc\r\n"


def test_missing_update_target_reports_the_io_error(tmp_path: Path) -> None:
    assert failure(patch("*** Update File: nope.txt", "@@", "-a", "+b"), tmp_path) == (
        f"Failed to read file to update {tmp_path}/nope.txt: No such file or directory (os error 2)"
    )


def test_missing_delete_target_reports_the_io_error(tmp_path: Path) -> None:
    assert failure(patch("*** Delete File: nope.txt"), tmp_path) == (
        f"Failed to read {tmp_path}/nope.txt: No such file or directory (os error 2)"
    )


def test_deleting_a_directory_is_refused_before_anything_changes(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    assert failure(patch("*** Delete File: dir"), tmp_path) == (
        f"Failed to read {tmp_path}/dir: Is a directory (os error 21)"
    )
    assert (tmp_path / "dir").is_dir()


def test_missing_context_header_is_reported(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    assert failure(patch("*** Update File: a.txt", "@@ def nowhere():", "-a", "+b"), tmp_path) == (
        f"Failed to find context 'def nowhere():' in {tmp_path}/a.txt"
    )


def test_missing_expected_lines_are_listed(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    assert failure(patch("*** Update File: a.txt", "@@", " x", "-y", "+z"), tmp_path) == (
        f"Failed to find expected lines in {tmp_path}/a.txt:\nx\ny"
    )


def test_model_sees_verification_failure_prefix(tmp_path: Path) -> None:
    with pytest.raises(PatchApplyError) as caught:
        run(patch("*** Delete File: nope.txt"), tmp_path)
    assert verification_failed_text(caught.value) == (
        f"apply_patch verification failed: Failed to read {tmp_path}/nope.txt: "
        "No such file or directory (os error 2)"
    )


def test_failing_second_hunk_leaves_the_first_file_untouched(tmp_path: Path) -> None:
    (tmp_path / "first.txt").write_text("keep\n")
    (tmp_path / "second.txt").write_text("a\n")
    text = patch(
        "*** Update File: first.txt", "@@", "-keep", "+changed",
        "*** Add File: created.txt", "+x",
        "*** Update File: second.txt", "@@", "-missing", "+b",
    )  # fmt: skip
    assert failure(text, tmp_path).startswith("Failed to find expected lines")
    assert (tmp_path / "first.txt").read_text() == "keep\n"
    assert not (tmp_path / "created.txt").exists()


def test_second_chunk_missing_context_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\nb\n")
    text = patch("*** Update File: a.txt", "@@", "-a", "+A", "@@ nowhere", "-b", "+B")
    assert failure(text, tmp_path) == f"Failed to find context 'nowhere' in {tmp_path}/a.txt"
    assert (tmp_path / "a.txt").read_text() == "a\nb\n"


@pytest.mark.parametrize(
    "lines",
    [
        ("*** Add File: ../escape.txt", "+x"),
        ("*** Add File: /tmp/elsewhere-tether-test.txt", "+x"),
        ("*** Update File: inside.txt", "*** Move to: ../moved.txt", "@@", "-a", "+b"),
        ("*** Add File: sub/../../escape.txt", "+x"),
    ],
)
def test_paths_escaping_the_writable_roots_are_refused(tmp_path: Path, lines: tuple[str, ...]) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "inside.txt").write_text("a\n")
    with pytest.raises(PatchOutsideRootsError) as caught:
        run(patch(*lines), root, [root])
    assert str(caught.value) == "writing outside of the project; rejected by user approval settings"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["root"]
    assert (root / "inside.txt").read_text() == "a\n"


def test_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside)
    with pytest.raises(PatchOutsideRootsError) as caught:
        run(patch("*** Add File: link/x.txt", "+x"), root, [root])
    assert caught.value.paths == (root / "link/x.txt",)
    assert not (outside / "x.txt").exists()


def test_paths_inside_any_root_are_written(tmp_path: Path) -> None:
    other = tmp_path / "other"
    run(patch("*** Add File: a.txt", "+x", f"*** Add File: {other}/b.txt", "+y"), tmp_path / "ws", [tmp_path])
    assert (tmp_path / "ws/a.txt").read_text() == "x\n"
    assert (other / "b.txt").read_text() == "y\n"


def test_no_roots_means_no_restriction(tmp_path: Path) -> None:
    run(patch("*** Add File: ../free.txt", "+x"), tmp_path / "ws", None)
    assert (tmp_path / "free.txt").read_text() == "x\n"
