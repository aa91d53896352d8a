"""The suite's data: requirements, cases, deliberate differences and known gaps."""

from __future__ import annotations

import tomllib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.context import CaseContext

HERE = Path(__file__).resolve().parent
ALL_TRANSPORTS = ("stdio", "unix", "ws")


@dataclass(frozen=True)
class Requirement:
    """One required behaviour of the protocol."""

    id: str
    text: str
    source: str
    transports: tuple[str, ...] = ALL_TRANSPORTS


@dataclass(frozen=True)
class Difference:
    """A requirement an implementation deliberately does not meet, and what it does instead.

    Attributes:
        requirement: the requirement it does not meet.
        target: the implementation that differs ("tether" or "codex").
        instead: the requirement that holds for that implementation instead (may be empty).
        reason: why.
    """

    requirement: str
    target: str
    reason: str
    instead: str = ""


@dataclass(frozen=True)
class Gap:
    """A requirement Tether does not meet yet.

    Attributes:
        requirement: the requirement not met.
        reason: why (e.g. "not implemented yet (issue 4)").
        target: whose gap it is.
        cases: when set, only failures seen in these cases are excused (for requirements every case
            checks, such as envelope.schema-valid, so that one known bug does not hide new ones).
    """

    requirement: str
    reason: str
    target: str = "tether"
    cases: tuple[str, ...] = ()


CaseFn = Callable[["CaseContext"], Awaitable[None]]


@dataclass(frozen=True)
class Case:
    """A scripted client run against a fresh server, citing the requirements it checks.

    Attributes:
        id: the case's name.
        requires: the requirement ids it checks (and only those).
        run: the client script.
        model: the fake model's script (responses, in order).
        transports: transports it can run on.
        clients: how many connections it opens at once (more than one needs a socket transport).
    """

    id: str
    requires: tuple[str, ...]
    run: CaseFn
    model: tuple[dict[str, Any], ...] = ()
    transports: tuple[str, ...] = ALL_TRANSPORTS
    clients: int = 1
    doc: str = ""


CASES: dict[str, Case] = {}
IMPLICIT = (
    "envelope.schema-valid",
    "envelope.emitted-at-ms",
    "envelope.no-jsonrpc-member",
    "envelope.json-lines",
)
"""Requirements every case checks on every message it receives."""


def case(
    case_id: str,
    *,
    requires: list[str],
    model: list[dict[str, Any]] | None = None,
    transports: tuple[str, ...] = ALL_TRANSPORTS,
    clients: int = 1,
) -> Callable[[CaseFn], CaseFn]:
    """Register the decorated coroutine as a case."""

    def register(fn: CaseFn) -> CaseFn:
        if case_id in CASES:
            raise ValueError(f"duplicate case id {case_id}")
        CASES[case_id] = Case(
            case_id, tuple(requires), fn, tuple(model or ()), transports, clients, (fn.__doc__ or "").strip()
        )
        return fn

    return register


@dataclass(frozen=True)
class Manifest:
    """Everything the runner needs besides the cases."""

    requirements: dict[str, Requirement]
    differences: list[Difference] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)

    def difference(self, requirement: str, target: str) -> Difference | None:
        """The deliberate difference of `target` on `requirement`, if one is listed."""
        return next(
            (d for d in self.differences if d.requirement == requirement and d.target == target), None
        )

    def gap(self, requirement: str, target: str) -> Gap | None:
        """The known gap of `target` on `requirement`, if one is listed."""
        return next((g for g in self.gaps if g.requirement == requirement and g.target == target), None)


def load_manifest(directory: Path = HERE) -> Manifest:
    """Read requirements.toml, differences.toml and known-gaps.toml from `directory`."""
    reqs = _toml(directory / "requirements.toml").get("requirement", [])
    requirements = {
        r["id"]: Requirement(r["id"], r["text"], r["source"], tuple(r.get("transports", ALL_TRANSPORTS)))
        for r in reqs
    }
    differences = [Difference(**d) for d in _toml(directory / "differences.toml").get("difference", [])]
    gaps = [
        Gap(g["requirement"], g["reason"], g.get("target", "tether"), tuple(g.get("cases", ())))
        for g in _toml(directory / "known-gaps.toml").get("gap", [])
    ]
    return Manifest(requirements, differences, gaps)


def _toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    with path.open("rb") as f:
        return tomllib.load(f)


def load_cases() -> dict[str, Case]:
    """All registered cases (importing the case modules registers them)."""
    import conformance.cases  # noqa: F401  (registration side effect)

    return CASES
