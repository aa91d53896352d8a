"""Wire-model set-up done while the daemon loads, so that its first requests do not pay for it."""

from __future__ import annotations

import sys
import types

_PLUGIN_LOADER = "pydantic.plugin._loader"


def skip_plugin_search() -> None:
    """Stop pydantic from searching for plugins; call it before any model is built.

    pydantic looks for plugins when it builds its first validator. It imports `importlib.metadata`
    and reads the entry points of every installed distribution: 30 to 40 ms of start-up, for
    observability hooks the daemon does not use (it has its own telemetry). The loader module is
    replaced by one that finds none. `PYDANTIC_DISABLE_PLUGINS` would skip only the search, not
    the import, and every command, MCP server and hook the daemon starts would inherit it.
    """
    loader = sys.modules.get(_PLUGIN_LOADER)
    if loader is not None:  # already searched, or about to be: an empty table ends it
        if getattr(loader, "_plugins", ()) is None:
            loader._plugins = {}  # type: ignore[attr-defined]
        return
    none_found = types.ModuleType(_PLUGIN_LOADER, "pydantic's plugin loader, with no plugins (Tether).")
    none_found.get_plugins = tuple  # type: ignore[attr-defined]  # get_plugins() -> ()
    sys.modules[_PLUGIN_LOADER] = none_found


def build_shared() -> None:
    """Build the models most methods share (`tether_protocol.prebuild`)."""
    from tether_protocol.prebuild import build_shared as build

    build()
