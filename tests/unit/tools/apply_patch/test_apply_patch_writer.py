"""The writer against a racing model: a path component swapped for a symlink after the check.

Each test checks a patch, then performs the swap a concurrently running command could make in
the window before the write (the real race, made deterministic by doing it in that window), and
shows that nothing lands outside. Before the dir-fd writer, `Path.write_bytes` followed the
planted symlink.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from tether_server.tools.apply_patch import (
    CheckedPatch,
    PatchApplyError,
    PatchBoundary,
    PatchError,
    parse_patch,
    plan_patch,
    read_regular,
    read_snapshot,
)
from tether_server.tools.apply_patch.writer import WriteGuard, remove_file, write_file

WORKSPACE_WRITE: dict[str, Any] = {
    "type": "workspaceWrite",
    "excludeSlashTmp": True,
    "excludeTmpdirEnvVar": True,
}


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / "sub").mkdir(parents=True)
    (path / "sub" / "f.txt").write_text("inside\n")
    (path / "notes.txt").write_text("old\n")
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "f.txt").write_text("precious\n")
    (path / "notes.txt").write_text("precious\n")
    return path


def checked(text: str, ws: Path) -> CheckedPatch:
    result = PatchBoundary.for_turn(WORKSPACE_WRITE, ws, {}, []).check(
        plan_patch(parse_patch(text), ws, None)
    )
    assert result.escalations == ()  # at check time the patch was harmless
    return result


def swap_for_symlink(path: Path, target: Path) -> None:
    path.rename(path.with_name(path.name + ".moved"))
    path.symlink_to(target)


def test_a_parent_directory_swapped_for_a_symlink_is_not_followed(ws: Path, outside: Path) -> None:
    pending = checked(patch("*** Add File: sub/evil.txt", "+pwned"), ws)
    swap_for_symlink(ws / "sub", outside)
    with pytest.raises(PatchApplyError, match="symbolic link"):
        pending.apply()
    assert not (outside / "evil.txt").exists()


def test_a_target_file_swapped_for_a_symlink_is_not_followed(ws: Path, outside: Path) -> None:
    pending = checked(patch("*** Update File: notes.txt", "@@", "-old", "+pwned"), ws)
    swap_for_symlink(ws / "notes.txt", outside / "notes.txt")
    with pytest.raises(PatchApplyError, match="symbolic link"):
        pending.apply()
    assert (outside / "notes.txt").read_text() == "precious\n"


def test_a_directory_planted_as_a_symlink_before_it_is_created_is_not_followed(
    ws: Path, outside: Path
) -> None:
    pending = checked(patch("*** Add File: fresh/deeper/x.txt", "+pwned"), ws)
    (ws / "fresh").symlink_to(outside)
    with pytest.raises(PatchApplyError, match="symbolic link"):
        pending.apply()
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt", "notes.txt"]


def test_a_delete_through_a_swapped_directory_is_not_followed(ws: Path, outside: Path) -> None:
    pending = checked(patch("*** Delete File: sub/f.txt"), ws)
    swap_for_symlink(ws / "sub", outside)
    with pytest.raises(PatchApplyError, match="symbolic link"):
        pending.apply()
    assert (outside / "f.txt").read_text() == "precious\n"


def test_a_move_whose_destination_directory_is_swapped_writes_nothing_outside(
    ws: Path, outside: Path
) -> None:
    pending = checked(
        patch("*** Update File: notes.txt", "*** Move to: sub/moved.txt", "@@", "-old", "+new"), ws
    )
    swap_for_symlink(ws / "sub", outside)
    with pytest.raises(PatchApplyError):
        pending.apply()
    assert not (outside / "moved.txt").exists()
    assert (ws / "notes.txt").read_text() == "old\n"  # the source stays when the write fails


def test_the_walk_refuses_any_symlinked_component(ws: Path, outside: Path) -> None:
    (ws / "link").symlink_to(outside)
    with pytest.raises(PatchApplyError, match="symbolic link"):
        write_file(ws / "link" / "x.txt", b"x", WriteGuard())
    with pytest.raises(PatchApplyError, match="symbolic link"):
        remove_file(ws / "link" / "f.txt", WriteGuard())
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt", "notes.txt"]


def test_the_walk_refuses_a_forbidden_directory_by_identity(ws: Path) -> None:
    st = os.stat(ws / "sub")
    with pytest.raises(PatchApplyError, match="protected"):
        write_file(ws / "sub" / "x.txt", b"x", WriteGuard(frozenset({(st.st_dev, st.st_ino)})))
    assert not (ws / "sub" / "x.txt").exists()


def _bounded(action: Any) -> list[BaseException]:
    """Run `action` in a thread and wait at most 10 s: a FIFO must not hang the daemon."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            action()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive(), "patching a FIFO blocked"
    return errors


def test_a_fifo_is_refused_instead_of_blocking(ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    update = patch("*** Update File: pipe", "@@", "-x", "+y")
    errors = _bounded(lambda: plan_patch(parse_patch(update), ws, None))
    assert len(errors) == 1 and isinstance(errors[0], PatchError)
    add = checked(patch("*** Add File: pipe", "+y"), ws)
    errors = _bounded(add.apply)
    assert len(errors) == 1 and isinstance(errors[0], PatchApplyError)


def test_reading_back_a_target_swapped_for_a_fifo_does_not_block(ws: Path) -> None:
    """After a write the daemon reads targets back for the turn diff; a racing command may have
    replaced one with a FIFO, which a plain open() would wait on forever."""
    os.mkfifo(ws / "swapped")
    errors = _bounded(lambda: read_regular(ws / "swapped"))
    assert len(errors) == 1 and isinstance(errors[0], OSError)
    snapshot: dict[Path, str | None] = {}
    assert _bounded(lambda: snapshot.update(read_snapshot([ws / "swapped", ws / "notes.txt"]))) == []
    assert snapshot == {ws / "swapped": None, ws / "notes.txt": "old\n"}
