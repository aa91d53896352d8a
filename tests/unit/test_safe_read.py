"""The rules for files read on the model's behalf, on real files: links, FIFOs, places, sizes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether_server import safe_read
from tether_server.config.skills import discover
from tether_server.tools.file_search.listing import list_root


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_a_regular_file_inside_the_project_is_read_up_to_the_limit(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "AGENTS.md").write_bytes(b"x" * 100)
    os.truncate(root / "AGENTS.md", 1 << 30)  # sparse: reading it whole would take a gigabyte
    assert safe_read.read_prefix(root / "AGENTS.md", 10, root=root) == b"x" * 10


@pytest.mark.parametrize(
    ("plant", "reason"),
    [
        (lambda p, out: p.symlink_to("/proc/self/environ"), "a symbolic link"),
        (lambda p, out: p.symlink_to(out), "a symbolic link"),
        (lambda p, out: os.mkfifo(p), "not a regular file"),
        (lambda p, out: p.mkdir(), "not a regular file"),
    ],
    ids=["proc-link", "outside-link", "fifo", "directory"],
)
def test_links_fifos_and_folders_are_refused_without_blocking(
    tmp_path: Path, plant: Callable[[Path, Path], object], reason: str
) -> None:
    root = _project(tmp_path)
    outside = tmp_path / "secret"
    outside.write_text("secret")
    plant(root / "AGENTS.md", outside)
    with pytest.raises(safe_read.Refused, match=reason):
        safe_read.read_prefix(root / "AGENTS.md", 1024, root=root)


def test_a_folder_link_cannot_lead_out_of_the_project_nor_into_a_private_path(tmp_path: Path) -> None:
    root = _project(tmp_path)
    private = tmp_path / "private"
    private.mkdir()
    (private / "AGENTS.md").write_text("secret")
    (root / "docs").symlink_to(private)
    with pytest.raises(safe_read.Refused, match="outside"):
        safe_read.read_prefix(root / "docs" / "AGENTS.md", 1024, root=root)
    with pytest.raises(safe_read.Refused, match="private to the server"):
        safe_read.read_prefix(
            root / "docs" / "AGENTS.md", 1024, root=root, private=[private], contained=False
        )
    # Looked up inside the private path itself (the daemon's own home): the user's choice.
    assert safe_read.read_prefix(private / "AGENTS.md", 1024, root=private, private=[private]) == b"secret"


def test_the_daemons_own_proc_entries_are_refused_even_when_followed(tmp_path: Path) -> None:
    link = tmp_path / "AGENTS.md"
    link.symlink_to(f"/proc/{os.getpid()}/environ")
    with pytest.raises(safe_read.Refused, match="own process information"):
        safe_read.read_prefix(link, 1024, root=tmp_path, contained=False, follow_links=True)


def test_a_fifo_skill_is_reported_and_a_fifo_gitignore_skipped(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / ".git").mkdir()
    skill = root / ".agents" / "skills" / "trap" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    os.mkfifo(skill)
    scan = discover(root, tmp_path / "home", tmp_path / "user")
    assert [s for s in scan.skills if s.scope != "system"] == []
    assert scan.errors == [(skill, "not read: not a regular file")]
    (root / "main.py").write_text("")
    os.mkfifo(root / ".gitignore")
    assert "main.py" in list_root(str(root), []).files
