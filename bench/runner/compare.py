"""Running workloads against targets, interleaved (A B A B …), and the harness's own ceilings."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import shutil
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
from bench.runner import history_workloads, resource_workloads, turn_workloads, ws_workloads
from bench.runner.fake import FakeModel, stream_ceiling
from bench.runner.framework import RunContext, Sample, Workload
from bench.runner.rpc import Json, RpcError, RpcPeer
from bench.runner.targets import Target

from tether_testing.script import message, reply

ALL_WORKLOADS: tuple[Workload, ...] = (
    *turn_workloads.WORKLOADS,
    *resource_workloads.WORKLOADS,
    *history_workloads.WORKLOADS,
    *ws_workloads.WORKLOADS,
)
RUN_ERRORS = (RpcError, OSError, RuntimeError, KeyError, ValueError)
WARM_UP = Workload("warm-up", "spawn and initialize once", (), turn_workloads.spawn_to_initialize)
Results = dict[str, dict[str, list[Sample]]]
Log = Callable[[str], None]


@dataclass(frozen=True)
class Plan:
    """What to run.

    Attributes:
        targets: servers under test, A first.
        workloads: the workloads, in order.
        reps: repetitions per workload and target.
        scratch: this invocation's scratch folder (removed afterwards unless kept).
        cache: folder kept across invocations: per-target caches and reusable prepared state.
        reuse_prepared: targets whose prepared state (W7's filled home) may be reused from `cache`.
        run_timeout_s: bound on one run.
        prepare_timeout_s: bound on one target's preparation (W7 builds 5,000 threads).
    """

    targets: list[Target]
    workloads: list[Workload]
    reps: int
    scratch: Path
    cache: Path
    reuse_prepared: frozenset[str] = frozenset()
    run_timeout_s: float = 300.0
    prepare_timeout_s: float = 3600.0


def _context(plan: Plan, target: Target, workload: Workload, run: str) -> RunContext:
    base = plan.scratch / target.name
    folder, shared, workspace = base / workload.id / run, base / workload.id / "shared", base / "workspace"
    if target.name in plan.reuse_prepared:
        digest = hashlib.sha256(f"{target.template}\n{workload.title}".encode()).hexdigest()[:12]
        shared = plan.cache / "prepared" / f"{target.name}-{workload.id}-{digest}"
    cache = plan.cache / target.name
    for path in (folder, shared, workspace, cache):
        path.mkdir(parents=True, exist_ok=True)
    return RunContext(target, folder, shared, workspace, cache)


async def _guarded(
    plan: Plan, ctx: RunContext, job: Callable[[], Awaitable[Sample]], timeout_s: float | None = None
) -> Sample:
    try:
        async with asyncio.timeout(timeout_s or plan.run_timeout_s):
            return await job()
    except RUN_ERRORS as exc:
        return Sample(error=f"{type(exc).__name__}: {exc}"[:300] + _keep_stderr(plan, ctx))


def _keep_stderr(plan: Plan, ctx: RunContext) -> str:
    """Copy a failed run's server stderr out of the scratch folder; returns a pointer to it."""
    log_file = ctx.folder / "server.stderr.log"
    if not log_file.exists():
        return ""
    kept = (
        plan.cache
        / "failures"
        / f"{ctx.folder.parent.parent.name}-{ctx.folder.parent.name}-{ctx.folder.name}.log"
    )
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(log_file, kept)
    return f" (server stderr: {kept})"


def _describe(sample: Sample) -> str:
    if sample.error:
        return f"ERROR {sample.error}"
    values = "  ".join(f"{k}={'—' if v is None else f'{v:,.2f}'}" for k, v in sample.values.items())
    return values + ("  | " + "; ".join(sample.notes) if sample.notes else "")


async def warm_up(plan: Plan, log: Log) -> None:
    """Spawn and initialize each target once, untimed (disk cache, bytecode cache)."""
    for target in plan.targets:
        ctx = _context(plan, target, WARM_UP, "warm-up")
        sample = await _guarded(plan, ctx, functools.partial(turn_workloads.spawn_to_initialize, ctx))
        log(f"warm-up {target.name}: {_describe(sample)}")


async def _prepare(plan: Plan, workload: Workload, log: Log) -> dict[str, Sample]:
    """Run `workload.prepare` per target; returns the targets it failed for."""
    broken: dict[str, Sample] = {}
    for target in plan.targets if workload.prepare is not None else []:
        ctx = _context(plan, target, workload, "prepare")
        marker = ctx.shared / "prepared.ok"
        if marker.exists():
            log(f"{workload.id} prepare {target.name}: reusing {ctx.shared}")
            continue
        # A preparation that failed or was interrupted left part of its state: start clean.
        for stale in ctx.shared.iterdir():
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
        started = time.perf_counter()
        prepared = await _guarded(
            plan, ctx, functools.partial(_prepare_one, workload, ctx), plan.prepare_timeout_s
        )
        log(f"{workload.id} prepare {target.name}: {time.perf_counter() - started:.1f} s")
        if prepared.error:
            broken[target.name] = prepared
            log(f"  prepare failed: {prepared.error}")
        elif target.name in plan.reuse_prepared:
            marker.touch()
    return broken


async def _prepare_one(workload: Workload, ctx: RunContext) -> Sample:
    assert workload.prepare is not None
    await workload.prepare(ctx)
    return Sample()


async def run_plan(plan: Plan, log: Log) -> Results:
    """Every workload: prepare per target, then reps x (each target in turn)."""
    results: Results = {}
    for workload in plan.workloads:
        per_target = results.setdefault(workload.id, {t.name: [] for t in plan.targets})
        broken = await _prepare(plan, workload, log)
        for rep in range(plan.reps):
            for target in plan.targets:
                if target.name in broken:
                    per_target[target.name].append(broken[target.name])
                    continue
                ctx = _context(plan, target, workload, f"rep{rep + 1}")
                started = time.perf_counter()
                sample = await _guarded(plan, ctx, functools.partial(workload.run, ctx))
                per_target[target.name].append(sample)
                took = f"({time.perf_counter() - started:4.1f} s)"
                log(f"{workload.id} rep {rep + 1}/{plan.reps} {target.name:<8} {took} {_describe(sample)}")
    return results


async def ceilings(scratch: Path, deltas: int = turn_workloads.W3_DELTAS) -> Json:
    """Deltas/s the fake model streams to a raw HTTP reader, and the client's own parse rate."""
    script = [reply(message("tok " * deltas, deltas=deltas))]
    rates: list[float] = []
    async with FakeModel(script, scratch / "ceiling") as fake:
        for _ in range(3):
            seen, seconds = await stream_ceiling(fake.base_url)
            rates.append(seen / seconds)
    return {"fake_deltas_per_s": statistics.median(rates), "client_parse_per_s": _client_parse_rate(deltas)}


def _client_parse_rate(count: int) -> float:
    params = {"threadId": "t" * 36, "turnId": "u" * 36, "itemId": "msg_000001", "delta": "tok "}
    line = orjson.dumps({"method": turn_workloads.DELTA, "params": params, "emittedAtMs": 1}) + b"\n"
    blob = line * count
    peer = RpcPeer()
    started = time.perf_counter()
    rest = b""
    for offset in range(0, len(blob), 1 << 18):
        rest = peer.feed_lines(rest + blob[offset : offset + (1 << 18)])
    return count / (time.perf_counter() - started)
