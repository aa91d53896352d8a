"""Checks of the Python running Tether and the libraries installed beside it."""

from __future__ import annotations

import importlib.metadata as metadata
import re
import sys

from tether_server.doctor import catalog
from tether_server.doctor.report import Check, ok

MIN_PYTHON = (3, 11)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\[[^\]]*\])?\s*([^;]*?)\s*(?:;(.*))?$")
_CLAUSE = re.compile(r"^(>=|<=|==|!=|~=|>|<)\s*([0-9][0-9A-Za-z.\-+]*)$")


def check_python(version_info: tuple[int, ...] = tuple(sys.version_info[:3])) -> Check:
    version = ".".join(str(part) for part in version_info[:3])
    details = {"version": version, "executable": sys.executable}
    if tuple(version_info[:2]) < MIN_PYTHON:
        return catalog.PYTHON_OLD.found(f"Python {version} is too old (3.11 or newer needed)", details)
    return ok("python", f"Python {version} ({sys.executable})", details)


def _release(version: str) -> tuple[int, ...]:
    match = re.match(r"\d+(?:\.\d+)*", version)
    return tuple(int(part) for part in match.group(0).split(".")) if match else ()


def satisfies(version: str, specifier: str) -> bool:
    """Whether `version` meets a specifier such as `<3,>=2.7` (release numbers only, no pre-releases)."""
    have = _release(version)
    for clause in filter(None, (part.strip() for part in specifier.split(","))):
        match = _CLAUSE.match(clause)
        if match is None:
            continue  # a form this small reader does not know: do not fail on it
        op, wanted = match.group(1), _release(match.group(2))
        width = max(len(have), len(wanted))
        a, b = have + (0,) * (width - len(have)), wanted + (0,) * (width - len(wanted))
        results = {
            ">=": a >= b,
            "<=": a <= b,
            "==": a == b,
            "!=": a != b,
            ">": a > b,
            "<": a < b,
            "~=": a >= b,
        }
        if not results[op]:
            return False
    return True


def _applies(marker: str | None) -> bool:
    if not marker:
        return True
    if "extra" in marker:
        return False  # optional extras ("dev", "tui") are not needed to run the daemon
    return not ("win32" in marker and "!=" not in marker and sys.platform != "win32")


def check_dependencies(distribution: metadata.Distribution | None = None) -> Check:
    """Every runtime requirement of `distribution` (installed Tether by default) is met."""
    try:
        dist = distribution or metadata.distribution("tether")
    except metadata.PackageNotFoundError:
        return ok("dependencies", "running from a source tree (tether is not installed as a package)")
    requirements = dist.requires or []
    found: dict[str, str] = {}
    for line in requirements:
        match = _REQUIREMENT.match(line)
        if match is None or not _applies(match.group(3)):
            continue
        name, specifier = match.group(1), match.group(2).strip()
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            summary = f"{name} is not installed ({name}{specifier} needed)"
            return catalog.DEPENDENCY_MISSING.found(summary, requirement=f"{name}{specifier}")
        found[name] = version
        if not satisfies(version, specifier):
            return catalog.DEPENDENCY_VERSION.found(
                f"{name} {version} is installed, {name}{specifier} is needed",
                {"installed": found},
                requirement=f"{name}{specifier}",
            )
    listed = ", ".join(f"{name} {version}" for name, version in found.items())
    return ok("dependencies", listed, {"installed": found})
