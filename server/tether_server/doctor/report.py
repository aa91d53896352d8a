"""What one check found, the catalogue of problems it can report, and how results are printed."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["ok", "warn", "fail", "skip"]
_MARK = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL", "skip": "skip"}


@dataclass(frozen=True)
class Check:
    """The verdict of one check.

    Attributes:
        name: the check (`home`, `database`, …), as listed in `catalog.CHECKS`.
        status: `ok`, `skip` (not applicable or not asked for), `warn` (works, but fix it) or
            `fail` (something will not work).
        summary: what was found, in one sentence.
        fix: what to do about it ("" when nothing is to be done).
        details: facts for `--json` readers (versions, paths, sizes).
    """

    name: str
    status: Status
    summary: str
    fix: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "summary": self.summary,
            "fix": self.fix or None,
            "details": dict(self.details),
        }


@dataclass(frozen=True)
class Problem:
    """A problem a check can report: its title and fix, with `{placeholders}` filled at run time.

    The catalogue of these is what docs/troubleshooting.md is generated from.
    """

    check: str
    status: Literal["warn", "fail"]
    title: str
    fix: str

    def found(self, summary: str, details: Mapping[str, Any] | None = None, **values: Any) -> Check:
        """The check result for this problem; `values` fill the fix's placeholders."""
        return Check(self.check, self.status, summary, self.fix.format(**values), details or {})


def ok(name: str, summary: str, details: Mapping[str, Any] | None = None) -> Check:
    return Check(name, "ok", summary, "", details or {})


def skip(name: str, summary: str) -> Check:
    return Check(name, "skip", summary)


def passed(checks: Iterable[Check]) -> bool:
    """True when nothing needs fixing: every check is `ok` or `skip`."""
    return all(check.status in ("ok", "skip") for check in checks)


def render_text(checks: Iterable[Check]) -> str:
    """One line per check: status, name, what was found and, when needed, the fix."""
    lines = []
    for check in checks:
        line = f"[{_MARK[check.status]}] {check.name:<18} {check.summary}"
        if check.fix:
            line += f" -- fix: {check.fix}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def render_json(checks: list[Check]) -> str:
    return json.dumps({"ok": passed(checks), "checks": [c.to_json() for c in checks]}, indent=2) + "\n"
