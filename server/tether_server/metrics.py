"""Prometheus metrics: every metric the daemon exports, and a no-op twin when metrics are off.

Off by default. `enable()` (the `--metrics` flag or `[tether] metrics = true`) imports
`prometheus_client` and builds the metrics in a registry of their own; until then every
recording function returns at its first line, and `prometheus_client` is never imported, so the
start-up path (and `initialize` latency) is unchanged for everyone who does not scrape.

Call sites record facts (`request_done`, `tool_call`, …); names, labels and buckets live here
only. Labels are bounded: methods come from the method table; a tool is named only when the
turn offered it (`ToolRegistry.metric_label`; the model may call any name), else `other`.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_LATENCY_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
_MODEL_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0)
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.:/-]{1,64}")


@dataclass
class _Metrics:
    registry: Any
    connections: Any
    connections_total: Any
    requests: Any
    request_seconds: Any
    overloaded: Any
    turns: Any
    turns_running: Any
    model_requests: Any
    model_seconds: Any
    model_tokens: Any
    tool_calls: Any
    tool_seconds: Any
    sandbox_refusals: Any
    commit_seconds: Any
    queue_depth: Any


_m: _Metrics | None = None


def enable() -> None:
    """Create the metrics (idempotent). Imports `prometheus_client`; raises ImportError without it."""
    global _m
    if _m is not None:
        return
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

    reg = CollectorRegistry(auto_describe=True)
    _m = _Metrics(
        registry=reg,
        connections=Gauge("tether_connections", "Open client connections.", ["transport"], registry=reg),
        connections_total=Counter(
            "tether_connections_accepted", "Client connections accepted.", ["transport"], registry=reg
        ),
        requests=Counter(
            "tether_rpc_requests",
            "JSON-RPC requests answered, by method and outcome (ok, or the error code).",
            ["method", "outcome"],
            registry=reg,
        ),
        request_seconds=Histogram(
            "tether_rpc_request_duration_seconds",
            "Time from a request's arrival to its answer.",
            ["method"],
            buckets=_LATENCY_BUCKETS,
            registry=reg,
        ),
        overloaded=Counter(
            "tether_rpc_overloaded",
            "Requests refused with -32001 (server overloaded), by which cap refused them.",
            ["scope"],
            registry=reg,
        ),
        turns=Counter("tether_turns", "Turns finished, by status.", ["status"], registry=reg),
        turns_running=Gauge("tether_turns_running", "Turns running now.", registry=reg),
        model_requests=Counter(
            "tether_model_requests",
            "Model requests, by model and outcome.",
            ["model", "outcome"],
            registry=reg,
        ),
        model_seconds=Histogram(
            "tether_model_request_duration_seconds",
            "Time from sending a model request to the end of its stream.",
            ["model"],
            buckets=_MODEL_BUCKETS,
            registry=reg,
        ),
        model_tokens=Counter(
            "tether_model_tokens",
            "Tokens reported by the model, by kind (input, cached_input, output, reasoning_output).",
            ["model", "kind"],
            registry=reg,
        ),
        tool_calls=Counter(
            "tether_tool_calls", "Tool calls, by tool and outcome.", ["tool", "outcome"], registry=reg
        ),
        tool_seconds=Histogram(
            "tether_tool_call_duration_seconds",
            "Tool call duration (approval waits included).",
            ["tool"],
            buckets=_LATENCY_BUCKETS,
            registry=reg,
        ),
        sandbox_refusals=Counter(
            "tether_sandbox_refusals",
            "Sandboxed commands refused because the sandbox could not confine them.",
            registry=reg,
        ),
        commit_seconds=Histogram(
            "tether_store_commit_duration_seconds",
            "Time to write one batch of durable events to the store.",
            buckets=_LATENCY_BUCKETS,
            registry=reg,
        ),
        queue_depth=Gauge(
            "tether_queue_depth",
            "Items waiting: outbox (frames queued to clients, all connections), inflight (requests running).",
            ["queue"],
            registry=reg,
        ),
    )
    # Counted at scrape time only: a task leak shows as a rising line (the soak samples it).
    tasks = Gauge("tether_asyncio_tasks", "Asyncio tasks alive in the daemon's event loop.", registry=reg)
    tasks.set_function(_task_count)


def _task_count() -> float:
    try:
        return float(len(asyncio.all_tasks()))
    except RuntimeError:  # scraped outside the event loop
        return 0.0


def enabled() -> bool:
    return _m is not None


def render() -> bytes:
    """The exposition text of every metric (empty when disabled)."""
    if _m is None:
        return b""
    from prometheus_client import generate_latest

    return bytes(generate_latest(_m.registry))


def watch_queue(name: str, depth: Callable[[], float]) -> None:
    """Report `depth()` as `tether_queue_depth{queue=name}` at each scrape."""
    if _m is not None:
        _m.queue_depth.labels(name).set_function(depth)


def connection_opened(transport: str) -> None:
    if _m is not None:
        _m.connections.labels(transport).inc()
        _m.connections_total.labels(transport).inc()


def connection_closed(transport: str) -> None:
    if _m is not None:
        _m.connections.labels(transport).dec()


def transport_kind(label: str) -> str:
    """A connection's transport label (`ws 127.0.0.1:5555`, `unix`, `stdio`) → a bounded label value."""
    return label.split(" ", 1)[0] or "other"


def request_done(method: str, outcome: str, seconds: float) -> None:
    if _m is not None:
        _m.requests.labels(method, outcome).inc()
        _m.request_seconds.labels(method).observe(seconds)


def overloaded(scope: str) -> None:
    if _m is not None:
        _m.overloaded.labels(scope).inc()


def turn_started() -> None:
    if _m is not None:
        _m.turns_running.inc()


def turn_finished(status: str) -> None:
    if _m is not None:
        _m.turns_running.dec()
        _m.turns.labels(status).inc()


def sandbox_refused() -> None:
    if _m is not None:
        _m.sandbox_refusals.inc()


class ModelCall:
    """One model request being timed; `usage` records the tokens its response reported."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.outcome = "error"

    def usage(self, **tokens: int) -> None:
        if _m is not None:
            for kind, count in tokens.items():
                if count:
                    _m.model_tokens.labels(self.model, kind).inc(count)


@contextmanager
def model_request(model: str) -> Iterator[ModelCall]:
    """Time one model request; the caller sets `outcome = "ok"` once its stream completed."""
    call = ModelCall(model)
    started = time.monotonic()
    try:
        yield call
    finally:
        if _m is not None:
            _m.model_requests.labels(model, call.outcome).inc()
            _m.model_seconds.labels(model).observe(time.monotonic() - started)


class ToolCall:
    """One tool call being timed; the caller sets `outcome` (`ok`, `failed`)."""

    def __init__(self) -> None:
        self.outcome = "error"


@contextmanager
def tool_call(name: str) -> Iterator[ToolCall]:
    """Time one call of the tool labelled `name` (one the turn offered, or `other`)."""
    call = ToolCall()
    started = time.monotonic()
    try:
        yield call
    finally:
        if _m is not None:
            tool = name if _TOOL_NAME.fullmatch(name) else "other"
            _m.tool_calls.labels(tool, call.outcome).inc()
            _m.tool_seconds.labels(tool).observe(time.monotonic() - started)


@contextmanager
def store_commit() -> Iterator[None]:
    started = time.monotonic()
    try:
        yield
    finally:
        if _m is not None:
            _m.commit_seconds.observe(time.monotonic() - started)
