"""Prepared homes (a database, or Codex's rollouts), built once per size and kept in the cache."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from bench.growth import codex_db, tether_db
from bench.growth.curve import NotAttempted, PointContext

# Codex keeps a rollout file of ~41 kB per thread: a million would be 41 GB of scratch disk.
CODEX_MAX_THREADS = 100_000


async def history_home(ctx: PointContext, turns: int) -> tuple[Path, str]:
    """A home holding one thread of `turns` turns, and that thread's id."""
    if ctx.run.target.name == "codex":
        source = await codex_db.template(ctx.run, ctx.prepared)
        home = ctx.prepared / f"history-{turns}-{codex_db.cache_key()}"
        build = codex_db.build_history
    else:
        source = await tether_db.template(ctx.run, ctx.prepared)
        home = ctx.prepared / f"history-{turns}-{tether_db.cache_key()}"
        build = tether_db.build_history
    marker = home / "ready"
    if not marker.exists():
        shutil.rmtree(home, ignore_errors=True)
        thread_id = await asyncio.to_thread(build, source, home, turns)
        marker.write_text(thread_id)
    return home, marker.read_text().strip()


async def threads_home(ctx: PointContext, count: int) -> Path:
    """A home holding `count` one-turn threads."""
    if ctx.run.target.name == "codex" and count > CODEX_MAX_THREADS:
        raise NotAttempted(f"over {CODEX_MAX_THREADS:,} threads (41 kB of rollout files each)")
    if ctx.run.target.name == "codex":
        source = await codex_db.template(ctx.run, ctx.prepared)
        home = ctx.prepared / f"threads-{count}-{codex_db.cache_key()}"
        build = codex_db.build_threads
    else:
        source = await tether_db.template(ctx.run, ctx.prepared)
        home = ctx.prepared / f"threads-{count}-{tether_db.cache_key()}"
        build = tether_db.build_threads
    marker = home / "ready"
    if not marker.exists():
        shutil.rmtree(home, ignore_errors=True)
        await asyncio.to_thread(build, source, home, count)
        marker.touch()
    return home
