"""Wire models the method tables name without importing them: each loads with its first use.

The tables (`methods*.py`, `server_methods.py`) hold about 560 models, and defining them was a
third of a daemon's start-up (issue 31) though a session uses a few dozen. A table module names a
model module for mypy only (under `TYPE_CHECKING`) and binds, at run time, `models(path)` under the
same name: its attributes are `LazyModel`s, which a spec resolves the first time its `params` or
`result` is read (validating a request, sending a notification, exporting the schema).
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModel:
    """The class `name` of the module `module`, imported when first asked for."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def resolve(self) -> Any:
        return getattr(importlib.import_module(self.module), self.name)

    def __repr__(self) -> str:
        return f"<lazy model {self.module}.{self.name}>"


class LazyModels:
    """A model module not imported yet: every attribute is a `LazyModel` of it."""

    __slots__ = ("_module",)

    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, name: str) -> LazyModel:
        if name.startswith("__"):
            raise AttributeError(name)
        return LazyModel(self._module, name)


def models(module: str) -> Any:
    """The stand-in a table module binds in place of `module` (typed `Any`: mypy sees the real one)."""
    return LazyModels(module)


def resolved(value: Any) -> Any:
    """`value`'s model class: itself, or what the `LazyModel` names."""
    return value.resolve() if isinstance(value, LazyModel) else value
