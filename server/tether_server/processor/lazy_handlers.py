"""Handler modules imported by the first request of one of their methods, not with the daemon.

A daemon's first answers (`initialize`, `thread/start`) wait for whatever it imported before them
(issue 31), and most handler modules, with the machinery and wire models they pull in, serve
methods a session may never call. `processor/handlers.py` names them for mypy only; at run time
each name is a `LazyModule`, whose attributes are `LazyHandler`s that import the module on their
first call. mypy still checks every handler against its spec, because it sees the real modules.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Awaitable
from typing import Any


class LazyHandler:
    """Stands for `module.attr` until its first call, which imports the module and keeps the function."""

    __slots__ = ("_attr", "_impl", "_module")

    def __init__(self, module: str, attr: str) -> None:
        self._module = module
        self._attr = attr
        self._impl: Any = None

    def resolve(self) -> Any:
        """The real function (importing its module the first time)."""
        if self._impl is None:
            self._impl = getattr(importlib.import_module(self._module), self._attr)
        return self._impl

    def __call__(self, *args: Any) -> Awaitable[Any]:
        impl = self._impl if self._impl is not None else self.resolve()
        result: Awaitable[Any] = impl(*args)
        return result

    def __repr__(self) -> str:
        return f"<lazy handler {self._module}.{self._attr}>"


class LazyModule:
    """A handler module not imported yet: every attribute is a `LazyHandler` into it."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> LazyHandler:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return LazyHandler(self._name, attr)


def lazy_modules(package: str, folder: str) -> dict[str, LazyModule]:
    """A `LazyModule` for every module of `package` (whose files are in `folder`), by its short name.

    Found from the folder's listing, so a new handler module needs no entry of its own here.
    """
    names = (entry[:-3] for entry in os.listdir(folder) if entry.endswith(".py"))
    return {name: LazyModule(f"{package}.{name}") for name in names if name != "__init__"}
