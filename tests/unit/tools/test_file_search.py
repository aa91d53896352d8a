"""File search: what is listed under a root (git's ignore rules) and how matches rank."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether_server.tools.file_search.listing import Cancelled, list_root
from tether_server.tools.file_search.matcher import Corpus, rank, score_path


def _tree(root: Path, paths: list[str]) -> None:
    for rel in paths:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rel)


def _ranked(paths: list[str], query: str) -> list[str]:
    return [m.path for m in rank([Corpus.of(paths, False)], query, 10)]


@pytest.mark.parametrize("git", [False, True], ids=["plain", "git"])
def test_listing_honours_nested_gitignores_and_negations(tmp_path: Path, git: bool) -> None:
    _tree(
        tmp_path,
        [
            "src/app.py",
            "src/app.log",
            "src/keep.log",
            "build/out.js",
            "web/node_modules/lib/index.js",
            "web/page.ts",
            "web/gen/schema.ts",
            ".hidden/config",
        ],
    )
    (tmp_path / ".gitignore").write_text("build/\n*.log\n!keep.log\nnode_modules/\n")
    (tmp_path / "web" / ".gitignore").write_text("gen/\n")
    if git:
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
        subprocess.run(["git", "-C", str(tmp_path), "add", "src/app.py"], check=True)
        (tmp_path / "src" / "app.py").unlink()
        _tree(tmp_path, ["src/app2.py"])
    listing = list_root(str(tmp_path), [])
    expected = {".gitignore", "web/.gitignore", "src/keep.log", "web/page.ts", ".hidden/config"}
    expected |= {"src/app2.py"} if git else {"src/app.py"}
    assert set(listing.files) == expected
    assert set(listing.directories) == {"src", "web", ".hidden"}


def test_private_paths_under_a_root_are_left_out(tmp_path: Path) -> None:
    _tree(tmp_path, ["home/.tether/tether.sqlite", "home/project/main.py"])
    listing = list_root(str(tmp_path / "home"), [tmp_path / "home" / ".tether"])
    assert listing.files == ["project/main.py"]


def test_file_name_matches_outrank_scattered_path_matches() -> None:
    paths = [
        "src/maintenance/notes.txt",
        "docs/m/a/i/n.txt",
        "tests/test_main.py",
        "src/main.py",
        "lib/domain.py",
    ]
    ranked = _ranked(paths, "main")
    assert ranked[:3] == ["src/main.py", "tests/test_main.py", "lib/domain.py"]
    assert ranked.index("src/maintenance/notes.txt") < ranked.index("docs/m/a/i/n.txt")


def test_word_starts_and_camel_case_beat_the_middle_of_words() -> None:
    assert _ranked(["a/formatter.py", "a/FooBar.py", "a/fooboar.py"], "fb")[0] == "a/FooBar.py"
    assert _ranked(["x/request_handler.py", "x/rehash.py"], "rh")[0] == "x/request_handler.py"


def test_indices_are_positions_in_the_path_and_prefer_the_file_name() -> None:
    scored = score_path("server/handlers.py", "hand")
    assert scored is not None
    assert scored[1] == [7, 8, 9, 10]
    across = score_path("src/main/app.py", "sma")
    assert across is not None and "".join("src/main/app.py"[i] for i in across[1]) == "sma"
    assert score_path("src/app.py", "zz") is None


def test_upper_case_in_the_query_makes_it_case_sensitive() -> None:
    assert _ranked(["a/Readme.md", "a/readme.txt"], "R") == ["a/Readme.md"]
    assert set(_ranked(["a/Readme.md", "a/readme.txt"], "r")) == {"a/Readme.md", "a/readme.txt"}


def test_limit_keeps_the_best_and_an_empty_query_matches_nothing() -> None:
    paths = [f"dir/file{i}.py" for i in range(200)] + ["f.py"]
    best = rank([Corpus.of(paths, False)], "f", 5)
    assert len(best) == 5 and best[0].path == "f.py"
    assert rank([Corpus.of(paths, False)], "  ", 5) == []


def test_a_superseded_search_stops(tmp_path: Path) -> None:
    _tree(tmp_path, ["a.py", "b/c.py"])
    with pytest.raises(Cancelled):
        list_root(str(tmp_path), [], cancelled=lambda: True)
    with pytest.raises(Cancelled):
        rank([Corpus.of(["a.py", "b.py"], False)], "py", 5, cancelled=lambda: True)
