"""What a workload is, what one run of it yields, and what a run may use (fake model, servers)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.runner.fake import FakeModel
from bench.runner.rpc import Json, RpcPeer, StdioServer
from bench.runner.targets import Target

from tether_testing.script import ScriptedResponse


@dataclass(frozen=True)
class Metric:
    """One number a workload reports.

    Attributes:
        key: name in results JSON.
        label: name in the table.
        unit: unit of the value.
        higher_is_better: True for rates.
        target: the Tether/Codex ratio to reach (≤ target, or ≥ target for rates); with
            `absolute`, the value A itself must reach; None: shown for information only.
        reference: the Codex figure the issue quotes, for orientation.
        absolute: the target applies to A's own value (e.g. a share of the floor), not to A/B.
    """

    key: str
    label: str
    unit: str
    target: float | None
    reference: str
    higher_is_better: bool = False
    absolute: bool = False

    def met(self, value: float) -> bool:
        """Whether a Tether/Codex ratio (A's value, for an absolute metric) reaches the target."""
        if self.target is None:
            return True
        return value >= self.target if self.higher_is_better else value <= self.target


@dataclass
class Sample:
    """The outcome of one run: values by metric key (None = not measurable), notes, or an error."""

    values: dict[str, float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str | None = None

    def to_json(self) -> Json:
        """Plain JSON form for the results file."""
        return {"values": self.values, "notes": self.notes, "error": self.error}


@dataclass
class RunContext:
    """What one run of a workload against one target may use.

    Attributes:
        target: the server under test.
        folder: scratch folder for this run only (homes, logs, the fake's script).
        shared: scratch folder kept across this target's runs of this workload (prepared state).
        workspace: the project folder threads work in (cwd).
        cache: this target's folder kept across invocations (e.g. a bytecode cache).
        on_spawn: called with each server right after it starts (e.g. to attach a profiler).
    """

    target: Target
    folder: Path
    shared: Path
    workspace: Path
    cache: Path
    on_spawn: Callable[[StdioServer], Awaitable[None]] | None = None

    def fake(self, script: Sequence[ScriptedResponse]) -> FakeModel:
        """A fake model playing `script` in a loop (an async context manager)."""
        return FakeModel(list(script), self.folder)

    @contextlib.asynccontextmanager
    async def server(
        self, base_url: str, *, home: Path | None = None, extra: Sequence[str] = ()
    ) -> AsyncIterator[StdioServer]:
        """A running server over stdio (not yet initialized); closed on exit.

        With ``--listen`` in `extra` the server does not end at stdin EOF, so it gets SIGTERM.
        """
        home = home or self.folder / "home"
        home.mkdir(parents=True, exist_ok=True)
        argv = [*self.target.argv(base_url=base_url, home=home, cache=self.cache), *extra]
        server = await StdioServer.spawn(argv, self.folder / "server.stderr.log", self.workspace)
        try:
            if self.on_spawn is not None:
                await self.on_spawn(server)
            yield server
        finally:
            await server.close(terminate="--listen" in extra)


Runner = Callable[[RunContext], Awaitable[Sample]]


@dataclass(frozen=True)
class Workload:
    """A benchmark workload: `run` is timed per repetition; `prepare` runs once per target."""

    id: str
    title: str
    metrics: tuple[Metric, ...]
    run: Runner
    prepare: Callable[[RunContext], Awaitable[None]] | None = None


class TurnFailed(RuntimeError):
    """A turn ended in a status other than completed."""


async def until_serving(client: RpcPeer) -> None:
    """One untimed round trip after `initialize`: a stdio server may answer `initialize` while it
    is still loading (Tether does), and a metric about serving must not include its start-up."""
    await client.request("thread/loaded/list", {})


async def start_thread(client: RpcPeer, cwd: Path, **overrides: Any) -> str:
    """`thread/start` in `cwd` with approvals off; returns the thread id."""
    params: Json = {"cwd": str(cwd), "approvalPolicy": "never", **overrides}
    result = await client.request("thread/start", params)
    thread_id: str = result["thread"]["id"]
    return thread_id


async def run_turn(client: RpcPeer, thread_id: str, text: str = "go", *, timeout_s: float = 120.0) -> Json:
    """Start a turn and wait for its `turn/completed`; returns that notification's params."""
    done = client.expect("turn/completed", lambda params: params.get("threadId") == thread_id)
    input_ = [{"type": "text", "text": text}]
    async with asyncio.timeout(timeout_s):
        await client.request("turn/start", {"threadId": thread_id, "input": input_})
        params = await done
    turn = params.get("turn") or {}
    if turn.get("status") != "completed":
        raise TurnFailed(f"turn ended {turn.get('status')}: {turn.get('error')}")
    return params


async def bounded_gather(jobs: Sequence[Callable[[], Awaitable[Any]]], limit: int) -> list[Any]:
    """Run `jobs` with at most `limit` in flight; results in order."""
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await job()

    return list(await asyncio.gather(*(one(job) for job in jobs)))


def percentile(values: Sequence[float], pct: float) -> float:
    """The `pct` percentile of `values` (nearest rank on the sorted values)."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1))))
    return ordered[rank]


def run_main(main: Coroutine[Any, Any, int]) -> int:
    """Run a command's coroutine on uvloop (the loop the servers use), or asyncio without it."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency on unix
        return asyncio.run(main)
    return int(uvloop.run(main))
