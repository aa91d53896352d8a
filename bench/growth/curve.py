"""What a growth curve is, what one point of it yields, and how the points of one target are run.

A curve measures the same few numbers at growing sizes (loaded threads, clients, turns, threads in
the database). Points run smallest first; a point that fails or overruns its time budget stops the
curve for that target, and the larger points are reported as not reached.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.runner.framework import RunContext
from bench.runner.rpc import Json, RpcError
from bench.runner.targets import Target

POINT_ERRORS = (RpcError, OSError, RuntimeError, KeyError, ValueError, TimeoutError)


class NotAttempted(Exception):
    """A point this target is not measured at; the message says why."""


@dataclass(frozen=True)
class Series:
    """One number a curve reports at each point (a table column, a plotted line)."""

    key: str
    label: str
    unit: str


@dataclass
class Point:
    """The outcome at one size: values by series key, notes, and why it stopped (if it did)."""

    x: int
    values: dict[str, float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    stopped: str | None = None
    seconds: float = 0.0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def to_json(self) -> Json:
        """Plain JSON form for the results file."""
        return {
            "x": self.x,
            "values": self.values,
            "notes": self.notes,
            "stopped": self.stopped,
            "seconds": round(self.seconds, 2),
            "load": list(self.load),
        }


@dataclass
class PointContext:
    """What measuring one point may use: the runner's context, plus a folder kept across runs."""

    run: RunContext
    prepared: Path
    quick: bool


Measure = Callable[[PointContext, int], Awaitable[Point]]
Prepare = Callable[[PointContext, int], Awaitable[object]]


@dataclass(frozen=True)
class Curve:
    """A growth curve.

    Attributes:
        name: id on the command line and file name of its outputs.
        title: what is measured, for the report.
        x_label: what grows.
        xs: the sizes of a full run; quick_xs those of `--quick`.
        series: the numbers reported at each point (RSS last by convention).
        measure: measures one point.
        budget_s: the time measuring one point may take before the curve stops.
        prepare: builds (or finds in the cache) what a point needs, untimed, before `measure`.
        prepare_budget_s: the time `prepare` may take (a first build of a big database).
        explanation: the shape and its cause, written from measurements (shown under the table).
    """

    name: str
    title: str
    x_label: str
    xs: tuple[int, ...]
    quick_xs: tuple[int, ...]
    series: tuple[Series, ...]
    measure: Measure
    budget_s: float = 300.0
    prepare: Prepare | None = None
    prepare_budget_s: float = 1800.0
    explanation: str = ""


def point_context(
    curve: Curve, target: Target, scratch: Path, cache: Path, x: int, quick: bool
) -> PointContext:
    """Folders for one point: scratch (removed after the run) and the prepared-state cache."""
    folder = scratch / curve.name / target.name / str(x)
    workspace = scratch / "workspace"
    prepared = cache / "growth" / target.name
    target_cache = cache / target.name
    for path in (folder, workspace, prepared, target_cache):
        path.mkdir(parents=True, exist_ok=True)
    run = RunContext(target, folder, folder, workspace, target_cache)
    return PointContext(run, prepared, quick)


async def run_curve(
    curve: Curve, target: Target, scratch: Path, cache: Path, *, quick: bool, log: Callable[[str], None]
) -> list[Point]:
    """Every point of `curve` for `target`, smallest first, until one fails or overruns."""
    points: list[Point] = []
    stop: str | None = None
    for x in curve.quick_xs if quick else curve.xs:
        if stop is not None:
            points.append(Point(x, stopped=f"not run: {stop}"))
            continue
        ctx = point_context(curve, target, scratch, cache, x, quick)
        point = await _prepare(curve, ctx, x, log)
        started = time.perf_counter()
        if point is None:
            try:
                async with asyncio.timeout(curve.budget_s):
                    point = await curve.measure(ctx, x)
            except TimeoutError:
                point = Point(x, stopped=f"over the {curve.budget_s:.0f} s budget per point")
            except POINT_ERRORS as exc:
                point = Point(x, stopped=f"{type(exc).__name__}: {exc}"[:200])
        point.seconds = time.perf_counter() - started
        point.load = os.getloadavg()
        if point.stopped is not None:
            stop = f"the {x:,} point stopped"
        points.append(point)
        log(f"{curve.name} {target.name:<7} x={x:<9,} ({point.seconds:6.1f} s) {describe(point)}")
    return points


async def _prepare(curve: Curve, ctx: PointContext, x: int, log: Callable[[str], None]) -> Point | None:
    """Run the curve's preparation for `x`; a Point saying why it stopped, or None when ready."""
    if curve.prepare is None:
        return None
    started = time.perf_counter()
    try:
        async with asyncio.timeout(curve.prepare_budget_s):
            await curve.prepare(ctx, x)
    except NotAttempted as exc:
        return Point(x, stopped=f"not attempted: {exc}")
    except TimeoutError:
        return Point(x, stopped=f"preparing took over {curve.prepare_budget_s:.0f} s")
    except POINT_ERRORS as exc:
        return Point(x, stopped=f"preparing failed: {type(exc).__name__}: {exc}"[:200])
    took = time.perf_counter() - started
    if took > 1:
        log(f"{curve.name} {ctx.run.target.name:<7} x={x:<9,} prepared in {took:.0f} s")
    return None


def describe(point: Point) -> str:
    """One log line for a point."""
    if point.stopped:
        return f"STOPPED {point.stopped}"
    values = "  ".join(f"{k}={'—' if v is None else f'{v:,.2f}'}" for k, v in point.values.items())
    return values + ("  | " + "; ".join(point.notes) if point.notes else "")
