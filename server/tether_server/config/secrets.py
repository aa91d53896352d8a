"""The one rule for which names hold secrets: spawned environments drop them, `config/read` hides them."""

from __future__ import annotations

import fnmatch

SECRET_NAME_PATTERNS = ("*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*AUTH*", "*CREDENTIAL*")


def matches_any(name: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """Whether `name` matches one of the glob `patterns`, ignoring case."""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern.upper()) for pattern in patterns)


def looks_secret(name: str) -> bool:
    """Whether a variable or parameter called `name` should be treated as a credential."""
    return matches_any(name, SECRET_NAME_PATTERNS)
