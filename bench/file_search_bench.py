"""Fuzzy file search on a 100k-file tree: listing (honouring .gitignore) and ranking.

Run: .venv/bin/python bench/file_search_bench.py [--files 100000] [--keep DIR]

Builds a tree of `--files` files (plus an ignored `node_modules/` and `build/` of 10% more), once
as a plain directory (walked in Python with the gitignore matcher) and once as a git work tree
(`git ls-files --others --exclude-standard`), then times a few queries against the listing.
Reported: seconds per listing and per query (median of 5). Target (issue 12): the TUI's `@` picker
answers a query on a 100k-file tree in well under a second once listed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from tether_server.tools.file_search.listing import list_root
from tether_server.tools.file_search.matcher import Corpus, rank

QUERIES = ["m", "main", "srvhandler", "compnt/button", "zzzzqq"]
WORDS = ["server", "client", "core", "utils", "handler", "button", "component", "model", "view", "store"]


def build(root: Path, files: int) -> None:
    (root / ".gitignore").write_text("node_modules/\nbuild/\n*.log\n")
    for i in range(files):
        a, b, c = WORDS[i % 10], WORDS[(i // 10) % 10], WORDS[(i // 100) % 10]
        folder = root / f"pkg{i // 1000}" / a / b
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{c}_{i}.py").touch()
    for i in range(files // 20):
        for ignored in ("node_modules", "build"):
            folder = root / ignored / f"dep{i // 500}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"main_{i}.js").touch()


def timed(fn: object, *args: object) -> tuple[float, object]:
    samples, result = [], None
    for _ in range(5):
        start = time.perf_counter()
        result = fn(*args)  # type: ignore[operator]
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def run(root: Path, label: str) -> None:
    seconds, listing = timed(list_root, str(root), [])
    files, directories = listing.files, listing.directories  # type: ignore[attr-defined]
    assert not [f for f in files if f.startswith(("node_modules/", "build/"))], "ignored files were listed"
    print(f"{label}: listing {len(files)} files, {len(directories)} dirs: {seconds:.3f}s")
    seconds, _ = timed(lambda: [Corpus.of(files, False), Corpus.of(directories, True)])
    print(f"  joining the listing for search: {seconds * 1000:.1f} ms")
    corpora = [Corpus.of(files, False), Corpus.of(directories, True)]
    for query in QUERIES:
        seconds, matches = timed(rank, corpora, query, 50)
        top = matches[0].path if matches else "-"  # type: ignore[index]
        print(f"  query {query!r:18} {seconds * 1000:7.1f} ms  top: {top}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="build the tree here and keep it")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="tether-fsbench-"))
    tree = base / "tree"
    try:
        if not tree.exists():
            start = time.perf_counter()
            tree.mkdir(parents=True)
            build(tree, args.files)
            print(f"built {args.files} files in {time.perf_counter() - start:.1f}s")
        git = tree / ".git"
        if git.exists():
            shutil.rmtree(git)
        run(tree, "plain directory (Python walk + pathspec)")
        subprocess.run(["git", "init", "-q", str(tree)], check=True)
        run(tree, "git work tree (git ls-files)")
        shutil.rmtree(git)
    finally:
        if args.keep is None:
            shutil.rmtree(base)
    os.sync()


if __name__ == "__main__":
    main()
