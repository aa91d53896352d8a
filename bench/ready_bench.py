"""Spawn → first `thread/start` answered (issue 31), Tether and the reference Codex interleaved.

One repetition spawns each target on a fresh (empty) home, then on a home of 5,000 one-turn
threads, alternating targets (A B A B ...): spawn, `initialize`, `initialized`, `thread/start`,
and the time until the `thread/start` answer. Medians over the repetitions, and their ratio.

    .venv/bin/python -m bench.ready_bench                 # 10 repetitions, Tether vs Codex
    .venv/bin/python -m bench.ready_bench --reps 15 --threads 5000

The 5,000-thread homes are the growth curves' (`bench/growth/homes.py`), built once into
`/opt/bench-scratch/cache/growth/<target>/` and reused; each spawn adds one thread to them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from pathlib import Path

from bench.growth.curve import PointContext
from bench.growth.homes import threads_home
from bench.runner.framework import RunContext, run_main, start_thread
from bench.runner.targets import Target, target_from_spec

from tether_testing.script import text_reply


def _context(target: Target, scratch: Path, cache: Path) -> PointContext:
    folder = scratch / target.name
    workspace = scratch / "workspace"
    prepared = cache / "growth" / target.name
    for path in (folder, workspace, prepared, cache / target.name):
        path.mkdir(parents=True, exist_ok=True)
    return PointContext(RunContext(target, folder, folder, workspace, cache / target.name), prepared, False)


async def _ready_ms(run: RunContext, base_url: str, home: Path) -> float:
    spawned = time.perf_counter()
    async with run.server(base_url, home=home) as server:
        await server.initialize()
        await start_thread(server, run.workspace)
        return (time.perf_counter() - spawned) * 1000


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--a", default="tether")
    parser.add_argument("--b", default="codex")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=5000, help="threads in the big home (0: skip it)")
    parser.add_argument("--scratch", type=Path, default=Path("/opt/bench-scratch"))
    args = parser.parse_args()
    scratch = args.scratch / f"ready-{os.getpid()}"
    targets = [target_from_spec(args.a), target_from_spec(args.b)]
    contexts = [_context(target, scratch, args.scratch / "cache") for target in targets]
    big = [await threads_home(ctx, args.threads) if args.threads else None for ctx in contexts]
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()}")
    samples: dict[tuple[str, str], list[float]] = {}
    try:
        async with contexts[0].run.fake([text_reply("ok", deltas=1)]) as fake:
            for rep in range(args.reps):
                for index, ctx in enumerate(contexts):
                    fresh = ctx.run.folder / f"fresh-{rep}"
                    key = (ctx.run.target.name, "fresh")
                    samples.setdefault(key, []).append(await _ready_ms(ctx.run, fake.base_url, fresh))
                    shutil.rmtree(fresh, ignore_errors=True)
                    home = big[index]
                    if home is not None:
                        key = (ctx.run.target.name, f"{args.threads} threads")
                        samples.setdefault(key, []).append(await _ready_ms(ctx.run, fake.base_url, home))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"load after {os.getloadavg()}; spawn → thread/start answered, ms, median [min-max]")
    names = [target.name for target in targets]
    for home_kind in dict.fromkeys(kind for _, kind in samples):
        row = [samples[(name, home_kind)] for name in names]
        cells = [f"{statistics.median(xs):.0f} [{min(xs):.0f}-{max(xs):.0f}]" for xs in row]
        ratio = statistics.median(row[0]) / statistics.median(row[1])
        print(f"{home_kind:>14}: {names[0]} {cells[0]}  {names[1]} {cells[1]}  ratio {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_main(main()))
