"""Large Codex homes for the growth curves: copies of one real thread's rollout and state rows.

Codex keeps a thread as a rollout file (JSON lines under ``sessions/``) plus a row in its state
database (``state_5.sqlite``) and a projection of turns and items (``thread_history_1.sqlite``) it
brings up to date from the rollout. A template thread (two turns) is made once by the reference
server against the fake model; copies get their own ids, text, ordinals and file names. Each
curve checks that Codex reads what was written (turn counts, list pages, search hits).
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

from bench.growth.tether_db import COMMON, FIRST_TEXT, NEEDLE, NEEDLE_EVERY, SECOND_TEXT, two_turn_home
from bench.runner.framework import RunContext

STATE_DB = "state_5.sqlite"
_IDS = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|msg_\d{6}\b)")
_ORDINAL = re.compile(r'^\{"timestamp":"[^"]*","ordinal":(\d+),')


BUILD_VERSION = 1


def cache_key() -> str:
    """Names cached homes: bump BUILD_VERSION whenever what the builder writes changes."""
    return f"v{BUILD_VERSION}"


async def template(ctx: RunContext, root: Path) -> Path:
    """A Codex home holding one thread of two turns (made once by the reference server)."""
    return await two_turn_home(ctx, root / f"codex-template-{cache_key()}", root)


def _rollout(home: Path, thread_id: str) -> Path:
    return next((home / "sessions").rglob(f"rollout-*-{thread_id}.jsonl"))


def _turns(lines: list[str]) -> tuple[list[str], list[str]]:
    """The rollout's lines up to the first turn's end, and the second turn's lines."""
    ends = [n for n, line in enumerate(lines) if '"type":"task_complete"' in line]
    return lines[: ends[0] + 1], lines[ends[0] + 1 : ends[1] + 1]


class _Copier:
    """A text whose ids get renamed per copy: split once at its ids, so each copy is a join.

    Ids are UUIDs (a copy's: ``00000000-<kind>-7000-8000-<copy>``) and the fake model's message
    ids; those in `keep` stay.
    """

    def __init__(self, text: str, keep: set[str]) -> None:
        self._pieces = _IDS.split(text)
        self._olds = list(dict.fromkeys(self._pieces[1::2]))
        self._keep = keep

    def names(self, copy: int) -> dict[str, str]:
        """Old id → the copy's id."""
        suffix = f"{copy:012x}"
        names = {}
        for kind, old in enumerate(self._olds):
            if old in self._keep:
                names[old] = old
            elif old.startswith("msg_"):
                names[old] = f"msg_{suffix}_{old[4:]}"
            else:
                names[old] = f"00000000-{kind:04x}-7000-8000-{suffix}"
        return names

    def copy(self, names: dict[str, str]) -> str:
        """The text with `names` applied."""
        pieces = list(self._pieces)
        pieces[1::2] = [names[old] for old in pieces[1::2]]
        return "".join(pieces)


def _renumber(line: str, shift: int) -> str:
    match = _ORDINAL.match(line)
    if match is None or shift == 0:
        return line
    start, end = match.span(1)
    return line[:start] + str(int(match.group(1)) + shift) + line[end:]


def build_history(source: Path, dest: Path, turns: int) -> str:
    """A copy of the template home whose thread has `turns` turns; returns the thread id.

    The second turn's lines are repeated with new ids and ordinals; the state and projection
    databases are the template's, which Codex brings up to date from the rollout when it reads it.
    """
    thread_id = (source / "ready").read_text().strip()
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(source, dest)
    path = _rollout(dest, thread_id)
    lines = path.read_text().splitlines(keepends=True)
    first, second = _turns(lines)
    span = len(second)
    copier = _Copier("".join(second), {thread_id})
    with path.open("w") as out:
        out.writelines(first)
        out.writelines(second)
        for copy in range(1, max(0, turns - 2) + 1):
            block = copier.copy(copier.names(copy)).replace(SECOND_TEXT, f"turn {copy:07d}")
            out.writelines(_renumber(line, copy * span) for line in block.splitlines(keepends=True))
    with sqlite3.connect(dest / STATE_DB) as db:
        db.execute("UPDATE threads SET rollout_path = ? WHERE id = ?", (str(path), thread_id))
    return thread_id


def build_threads(source: Path, dest: Path, count: int) -> None:
    """A home with `count` one-turn threads: rollout files and state rows copied from the template."""
    thread_id = (source / "ready").read_text().strip()
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("sessions", "thread_history_*"))
    template_path = _rollout(source, thread_id)
    first, _ = _turns(template_path.read_text().splitlines(keepends=True))
    folder = dest / "sessions" / "2026" / "01" / "01"
    folder.mkdir(parents=True)
    db = sqlite3.connect(dest / STATE_DB, isolation_level=None)
    try:
        cursor = db.execute("SELECT * FROM threads WHERE id = ?", (thread_id,))
        columns = [d[0] for d in cursor.description]
        row = dict(zip(columns, cursor.fetchone(), strict=True))
        db.execute("BEGIN")
        db.execute("DELETE FROM threads WHERE id = ?", (thread_id,))
        copier = _Copier("".join(first), set())
        rows = (_copy_thread(row, copier, folder, template_path.name, copy) for copy in range(1, count + 1))
        marks = ", ".join("?" * len(columns))
        db.executemany(f"INSERT INTO threads ({', '.join(columns)}) VALUES ({marks})", rows)
        db.execute("COMMIT")
    finally:
        db.close()


def _copy_thread(
    row: dict[str, object], copier: _Copier, folder: Path, name: str, copy: int
) -> tuple[object, ...]:
    thread_id = str(row["id"])
    needle = f" {NEEDLE}" if copy % NEEDLE_EVERY == 0 else ""
    text = f"{COMMON} thread {copy:07d}{needle}"
    names = copier.names(copy)
    new_id = names[thread_id]
    path = folder / name.replace(thread_id, new_id)
    path.write_text(copier.copy(names).replace(FIRST_TEXT, text))
    values = dict(row)
    for key in ("title", "first_user_message", "preview"):
        values[key] = str(row[key]).replace(FIRST_TEXT, text)
    for key in ("created_at", "updated_at", "recency_at"):
        values[key] = int(row[key]) + copy  # type: ignore[call-overload]
    for key in ("created_at_ms", "updated_at_ms", "recency_at_ms"):
        values[key] = int(row[key]) + copy * 1000  # type: ignore[call-overload]
    values |= {"id": new_id, "rollout_path": str(path)}
    return tuple(values.values())
