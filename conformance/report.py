"""The run's outputs: a requirement → status table on stdout, and a JSON report."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from conformance.manifest import Manifest
from conformance.runner import FAIL, GAP, CaseResult, RequirementResult


def table(results: list[RequirementResult], *, show_not_run: bool = False) -> str:
    """A fixed-width table, one row per requirement, failures' first detail underneath."""
    rows = [r for r in results if show_not_run or r.status != "not run"]
    width = max((len(r.id) for r in rows), default=10)
    lines = [f"{'requirement':<{width}}  {'status':<18}  cases", "-" * (width + 40)]
    for r in rows:
        status = r.status + (" (stale gap)" if r.stale_gap else "")
        cases = ", ".join(r.cases) if len(r.cases) <= 3 else f"{len(r.cases)} cases"
        lines.append(f"{r.id:<{width}}  {status:<18}  {cases}")
        if r.status in (FAIL, GAP) and r.failures:
            lines.append(f"{'':<{width}}    ↳ {r.failures[0][:300]}")
    lines.append(summary_line(results))
    return "\n".join(lines)


def summary_line(results: list[RequirementResult]) -> str:
    """`pass 40 · differs-by-design 5 · …`."""
    counts = Counter(r.status for r in results)
    return " · ".join(f"{status} {n}" for status, n in sorted(counts.items()))


def json_report(
    manifest: Manifest,
    results: list[RequirementResult],
    cases: list[CaseResult],
    meta: dict[str, Any],
) -> dict[str, Any]:
    """The machine-readable report."""
    reqs = manifest.requirements
    return {
        **meta,
        "summary": dict(Counter(r.status for r in results)),
        "requirements": [
            {
                "id": r.id,
                "text": reqs[r.id].text,
                "source": reqs[r.id].source,
                "status": r.status,
                "cases": r.cases,
                "failures": r.failures,
                "reason": r.reason,
                "stale_gap": r.stale_gap,
            }
            for r in results
        ],
        "cases": [
            {
                "id": c.case.id,
                "requires": list(c.case.requires),
                "error": c.error,
                "seconds": round(c.seconds, 3),
                "server_log_tail": c.server_log,
            }
            for c in cases
        ],
    }


def write_json(path: Path, report: dict[str, Any]) -> None:
    """Write the report to `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")
