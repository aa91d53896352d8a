"""Prepared homes (a database, or Codex's rollouts), built once per size and kept in the cache."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Protocol

from bench.growth import codex_db, tether_db
from bench.growth.curve import NotAttempted, PointContext
from bench.runner.framework import RunContext

# Codex keeps a rollout file of ~41 kB per thread: a million would be 41 GB of scratch disk.
CODEX_MAX_THREADS = 100_000


async def history_home(ctx: PointContext, turns: int) -> tuple[Path, str]:
    """A home holding one thread of `turns` turns, and that thread's id."""
    db = _builder(ctx)
    source = await db.template(ctx.run, ctx.prepared)
    home = ctx.prepared / f"history-{turns}-{db.cache_key()}"
    marker = home / "ready"
    if not marker.exists():
        shutil.rmtree(home, ignore_errors=True)
        thread_id = await asyncio.to_thread(db.build_history, source, home, turns)
        marker.write_text(thread_id)
    return home, marker.read_text().strip()


async def threads_home(ctx: PointContext, count: int) -> Path:
    """A home holding `count` one-turn threads."""
    if ctx.run.target.name == "codex" and count > CODEX_MAX_THREADS:
        raise NotAttempted(f"over {CODEX_MAX_THREADS:,} threads (41 kB of rollout files each)")
    db = _builder(ctx)
    source = await db.template(ctx.run, ctx.prepared)
    home = ctx.prepared / f"threads-{count}-{db.cache_key()}"
    marker = home / "ready"
    if not marker.exists():
        shutil.rmtree(home, ignore_errors=True)
        await asyncio.to_thread(db.build_threads, source, home, count)
        marker.touch()
    return home


class _Builder(Protocol):
    """What `codex_db` and `tether_db` each provide."""

    def cache_key(self) -> str: ...
    async def template(self, ctx: RunContext, root: Path) -> Path: ...
    def build_history(self, source: Path, dest: Path, turns: int) -> str: ...
    def build_threads(self, source: Path, dest: Path, count: int) -> None: ...


def _builder(ctx: PointContext) -> _Builder:
    return codex_db if ctx.run.target.name == "codex" else tether_db
