"""Large Tether databases for the growth curves, built by copying one real thread's rows.

Through the API a million threads would take hours, so a template thread (two turns) is made once
by a real server against the fake model; its rows in every table (threads, turns, items, history,
events, search_docs and so the FTS index) are then copied with SQL in one transaction, each copy
with its own ids, timestamps and message text. The rows are the store's own, written in its own
schema; only how they got there differs. Databases are cached (outside the repository) under a
key that changes with this file and the schema version.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from bench.runner.framework import RunContext, run_turn, start_thread

from tether_server.store.migrations import SCHEMA_VERSION
from tether_testing.script import text_reply

BUILD_VERSION = 1
DB_FILE = "tether.sqlite"
FIRST_TEXT, SECOND_TEXT = "ALPHA_MARK", "BRAVO_MARK"
NEEDLE = "needle"
NEEDLE_EVERY = 10_000
# Every copy's thread text contains this word, so a search for it matches every thread.
COMMON = "bench"
_TIME_COLUMNS = ("created_at", "updated_at", "recency_at")
ID_KINDS = 8


def cache_key() -> str:
    """Names cached databases: bump BUILD_VERSION whenever what the builder writes changes."""
    return f"v{BUILD_VERSION}-s{SCHEMA_VERSION}"


async def template(ctx: RunContext, root: Path) -> Path:
    """A home whose database holds one thread of two turns (made once by a real server)."""
    return await two_turn_home(ctx, root / f"template-{cache_key()}", root)


async def two_turn_home(ctx: RunContext, home: Path, root: Path) -> Path:
    """`home` holding one thread of two turns, made once by the target's server against the fake
    model (`home/ready` names the thread); its workspace is `root/workspace`."""
    if (home / "ready").exists():
        return home
    shutil.rmtree(home, ignore_errors=True)
    workspace = root / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    script = [text_reply("first answer", deltas=1), text_reply("second answer", deltas=1)]
    async with ctx.fake(script) as fake, ctx.server(fake.base_url, home=home) as server:
        await server.initialize()
        thread_id = await start_thread(server, workspace)
        await run_turn(server, thread_id, FIRST_TEXT)
        await run_turn(server, thread_id, SECOND_TEXT)
    (home / "ready").write_text(thread_id)
    return home


class _Template:
    """The template thread's ids, read from its database, and which rows belong to which turn."""

    def __init__(self, db: sqlite3.Connection, thread_id: str) -> None:
        self.thread_id = thread_id
        turns = db.execute("SELECT turn_id FROM turns WHERE thread_id = ? ORDER BY ordinal", (thread_id,))
        self.turn_ids: list[str] = [row[0] for row in turns]
        items = db.execute(
            "SELECT item_id, turn_id FROM items WHERE thread_id = ? ORDER BY ordinal", (thread_id,)
        )
        self.items: list[tuple[str, str]] = [(row[0], row[1]) for row in items]
        # Events carry no turn id column: the first turn's end at its turn/completed.
        row = db.execute(
            "SELECT min(seq) FROM events WHERE thread_id = ? AND method = 'turn/completed' AND params LIKE ?",
            (thread_id, f"%{self.turn_ids[0]}%"),
        ).fetchone()
        self.first_turn_last_seq = int(row[0])

    def ids(self) -> list[str]:
        """Every id a copy needs anew: thread, turns, items."""
        return [self.thread_id, *self.turn_ids, *(item for item, _ in self.items)]

    def turn_rows(self, turn: int) -> dict[str, str]:
        """WHERE text per table for the rows of turn number `turn` (0 or 1)."""
        key = f"src.thread_id = '{self.thread_id}'"
        turn_id = self.turn_ids[turn]
        items = ", ".join(f"'{item}'" for item, owner in self.items if owner == turn_id)
        cut = self.first_turn_last_seq
        return {
            "turns": f"{key} AND src.turn_id = '{turn_id}'",
            "items": f"{key} AND src.turn_id = '{turn_id}'",
            "history": f"{key} AND src.turn_id = '{turn_id}'",
            "events": f"{key} AND src.seq {'<=' if turn == 0 else '>'} {cut}",
            # The thread's own docs (name, preview) go with the first turn.
            "search_docs": f"{key} AND (src.item_id IN ({items})"
            + (" OR src.item_id IS NULL)" if turn == 0 else ")"),
        }


def _columns(db: sqlite3.Connection, table: str) -> list[tuple[str, str]]:
    rows = db.execute(f"PRAGMA table_info({table})").fetchall()
    return [(row[1], str(row[2]).upper()) for row in rows if not (table == "search_docs" and row[1] == "id")]


def _replaced(column: str, swaps: list[tuple[str, str]]) -> str:
    expression = f"src.{column}"
    for old, new in swaps:
        expression = f"replace({expression}, '{old}', {new})"
    return expression


def _copy(
    db: sqlite3.Connection, table: str, where: str, swaps: list[tuple[str, str]], exprs: dict[str, str]
) -> None:
    """INSERT one copy of the `where` rows of `table` per `gen` row.

    A column in `exprs` takes that SQL expression; other text columns get `swaps` (old text, SQL
    for the new one) applied, only those their template values contain (replace() is the cost).
    """
    columns = _columns(db, table)
    names, values = [], []
    for name, kind in columns:
        names.append(name)
        if name in exprs:
            values.append(exprs[name])
        elif kind == "TEXT":
            present = [
                (old, new)
                for old, new in swaps
                if db.execute(
                    f"SELECT 1 FROM {table} AS src WHERE {where} AND instr(src.{name}, ?) LIMIT 1", (old,)
                ).fetchone()
            ]
            values.append(_replaced(name, present))
        else:
            values.append(f"src.{name}")
    order = "".join(f", src.{n}" for n, _ in columns if n in ("ordinal", "seq"))
    db.execute(
        f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(values)} "
        f"FROM gen CROSS JOIN {table} AS src WHERE {where} ORDER BY gen.i{order}"
    )


def _start(source: Path, dest: Path) -> tuple[sqlite3.Connection, _Template]:
    thread_id = (source / "ready").read_text().strip()
    dest.mkdir(parents=True, exist_ok=True)
    (dest / DB_FILE).unlink(missing_ok=True)
    with sqlite3.connect(source / DB_FILE) as src:
        src.execute("VACUUM INTO ?", (str(dest / DB_FILE),))
    db = sqlite3.connect(dest / DB_FILE, isolation_level=None)
    # A build that fails is thrown away whole, so it needs no journal; foreign keys stay off while
    # copying (each copy references only rows copied before it).
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -262144")
    return db, _Template(db, thread_id)


def _finish(db: sqlite3.Connection) -> None:
    db.execute("COMMIT")
    db.execute("PRAGMA journal_mode = WAL")
    db.close()


def _gen(db: sqlite3.Connection, count: int) -> None:
    """Table `gen`: one row per copy, its number `i` and its new ids (made once, used many times)."""
    kinds = range(ID_KINDS)
    db.execute(f"CREATE TEMP TABLE gen (i INTEGER PRIMARY KEY, {', '.join(f'id{k} TEXT' for k in kinds)})")
    ids = ", ".join(f"printf('00000000-{k:04x}-7000-8000-%012x', i)" for k in kinds)
    db.execute(
        "INSERT INTO gen WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
        f"SELECT i, {ids} FROM n WHERE i <= ?",  # the recursion's first row is there even for 0
        (count, count),
    )


def _swaps(ids: list[str], text: str) -> list[tuple[str, str]]:
    """Each of `ids` to its copy's (`gen.id<kind>`), the turns' texts to `text` and a turn number."""
    swaps = [(old, f"gen.id{kind}") for kind, old in enumerate(ids)]
    return [*swaps, (FIRST_TEXT, text), (SECOND_TEXT, "printf('turn %07d', gen.i)")]


def build_threads(source: Path, dest: Path, count: int) -> None:
    """`dest`/tether.sqlite with `count` one-turn threads (copies of the template's first turn)."""
    db, tpl = _start(source, dest)
    try:
        db.execute("BEGIN")
        _gen(db, count)
        needle = f"CASE WHEN gen.i % {NEEDLE_EVERY} = 0 THEN ' {NEEDLE}' ELSE '' END"
        swaps = _swaps(tpl.ids(), f"printf('{COMMON} thread %07d', gen.i) || {needle}")
        times = {name: f"src.{name} + gen.i" for name in _TIME_COLUMNS}
        last_seq = {"last_seq": str(tpl.first_turn_last_seq)}
        _copy(db, "threads", f"src.id = '{tpl.thread_id}'", swaps, times | last_seq)
        for table, where in tpl.turn_rows(0).items():
            _copy(db, table, where, swaps, times)
        db.execute("COMMIT")
        db.execute("PRAGMA foreign_keys = ON")  # the template goes with all its rows (cascade)
        db.execute("BEGIN")
        db.execute("DELETE FROM threads WHERE id = ?", (tpl.thread_id,))
        _finish(db)
    except BaseException:
        db.close()
        raise


def build_history(source: Path, dest: Path, turns: int) -> str:
    """`dest`/tether.sqlite with the template thread grown to `turns` turns; returns its id.

    The second turn's rows (turn, items, history, events, search text) are copied `turns - 2`
    times after it, each copy with its own ids and text and its ordinals moved past the last.
    """
    db, tpl = _start(source, dest)
    try:
        db.execute("BEGIN")
        _gen(db, max(0, turns - 2))
        last = tpl.turn_ids[-1]
        swaps = _swaps([last, *(item for item, turn in tpl.items if turn == last)], FIRST_TEXT)
        ordered = {"turns": "ordinal", "items": "ordinal", "history": "ordinal", "events": "seq"}
        for table, where in tpl.turn_rows(1).items():
            exprs = {}
            if table in ordered:
                column = ordered[table]
                low, high = db.execute(
                    f"SELECT min(src.{column}), max(src.{column}) FROM {table} AS src WHERE {where}"
                ).fetchone()
                exprs[column] = f"src.{column} + gen.i * {high - low + 1}"
            _copy(db, table, where, swaps, exprs)
        db.execute(
            "UPDATE threads SET last_seq = (SELECT max(seq) FROM events WHERE thread_id = ?) WHERE id = ?",
            (tpl.thread_id, tpl.thread_id),
        )
        _finish(db)
    except BaseException:
        db.close()
        raise
    return tpl.thread_id
