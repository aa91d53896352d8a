"""Run cases against the server under test and turn their checks into requirement statuses."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.client import RpcError
from conformance.context import CaseBug, CaseContext, Check
from conformance.manifest import Case, Manifest
from conformance.schema import ReferenceSchema
from conformance.server import ServerTemplate
from tether_testing.fake_responses import FakeResponsesServer

CASE_TIMEOUT_S = 90.0
# What a failing case script can raise: a wrong reply shape, a timeout, a lost connection.
CASE_FAILURES = (
    AssertionError,
    TimeoutError,
    ConnectionError,
    RpcError,
    KeyError,
    TypeError,
    ValueError,
    IndexError,
    OSError,
    CaseBug,
)

PASS, FAIL, DIFFERS, GAP, NOT_RUN = "pass", "fail", "differs-by-design", "known gap", "not run"


@dataclass
class CaseResult:
    """What one case observed."""

    case: Case
    checks: dict[str, list[Check]]
    error: str = ""
    seconds: float = 0.0
    server_log: str = ""


@dataclass
class RequirementResult:
    """The verdict on one requirement, over every case that checked it."""

    id: str
    status: str
    cases: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    reason: str = ""
    stale_gap: bool = False


@dataclass(frozen=True)
class RunSettings:
    """How to run the suite."""

    template: ServerTemplate
    reference: Path
    scratch: Path
    target: str = "other"
    jobs: int = 4
    options: dict[str, Any] = field(default_factory=dict)
    keep_scratch: bool = False


def select_cases(cases: dict[str, Case], only: Iterable[str], transport: str) -> list[Case]:
    """Cases for `transport` that have an id, or cite a requirement, matching one of `only` (prefixes)."""
    wanted = list(only)
    chosen = []
    for c in cases.values():
        if transport not in c.transports:
            continue
        names = [c.id, *c.requires]
        if not wanted or any(n == w or n.startswith(w.rstrip("*")) for n in names for w in wanted):
            chosen.append(c)
    return chosen


async def run_cases(cases: list[Case], settings: RunSettings) -> list[CaseResult]:
    """Run `cases`, at most `settings.jobs` at a time."""
    schema = ReferenceSchema(settings.reference)
    gate = asyncio.Semaphore(max(1, settings.jobs))

    async def one(index: int, c: Case) -> CaseResult:
        async with gate:
            return await run_case(c, settings, schema, settings.scratch / f"{index:03d}-{c.id}")

    return list(await asyncio.gather(*(one(i, c) for i, c in enumerate(cases))))


async def run_case(c: Case, settings: RunSettings, schema: ReferenceSchema, scratch: Path) -> CaseResult:
    """Run one case on a fresh scratch folder and fake model."""
    _make_dirs(scratch)
    started = time.monotonic()
    error = ""
    async with FakeResponsesServer(c.model) as model:
        ctx = CaseContext(c, settings.template, schema, scratch, model, dict(settings.options))
        try:
            async with asyncio.timeout(CASE_TIMEOUT_S):
                await c.run(ctx)
        except CASE_FAILURES as exc:
            error = f"{type(exc).__name__}: {exc}"[:500]
        finally:
            await ctx.stop_servers()
        ctx.charge_envelope_violations()
    log = "\n".join(s.stderr_tail() for s in ctx.servers) if error else ""
    if settings.keep_scratch:
        ctx.write_transcripts()
    _close_unchecked(c, ctx.checks, error)
    if not settings.keep_scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    return CaseResult(c, ctx.checks, error, time.monotonic() - started, log)


def _make_dirs(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)


def _close_unchecked(c: Case, checks: dict[str, list[Check]], error: str) -> None:
    """A cited requirement the case never got to check fails: the case did not show it holds."""
    for requirement in c.requires:
        if not checks.get(requirement):
            why = f"not reached: {error}" if error else "the case finished without checking it"
            checks[requirement] = [Check(False, why)]


def verdicts(manifest: Manifest, results: list[CaseResult], target: str) -> list[RequirementResult]:
    """Each requirement's status over all case results."""
    return [_verdict(manifest, req_id, results, target) for req_id in manifest.requirements]


def _verdict(manifest: Manifest, req_id: str, results: list[CaseResult], target: str) -> RequirementResult:
    relevant = [r for r in results if req_id in r.checks]
    failing = {r.case.id: [c.detail for c in r.checks[req_id] if not c.ok] for r in relevant}
    failing = {case_id: details for case_id, details in failing.items() if details}
    result = RequirementResult(req_id, NOT_RUN, [r.case.id for r in relevant])
    result.failures = [f"[{case_id}] {d}" for case_id, details in failing.items() for d in details][:5]
    gap, diff = manifest.gap(req_id, target), manifest.difference(req_id, target)
    if not relevant:
        return result
    if not failing:
        result.status, result.stale_gap = PASS, gap is not None
    elif diff is not None:
        result.status = DIFFERS
        result.reason = diff.reason + (f" (instead: {diff.instead})" if diff.instead else "")
    elif gap is not None and (not gap.cases or set(failing) <= set(gap.cases)):
        result.status, result.reason = GAP, gap.reason
    else:
        result.status = FAIL
    return result


def case_bugs(results: list[CaseResult]) -> list[str]:
    """Cases that broke the suite's own rules (e.g. checked a requirement they do not cite)."""
    return [f"{r.case.id}: {r.error}" for r in results if r.error.startswith(CaseBug.__name__)]
