"""Wire-model set-up done while the daemon loads, so that its first requests do not pay for it."""

from __future__ import annotations


def prepare() -> None:
    """Skip pydantic's plugin search, then build the models most methods share."""
    _skip_plugin_scan()
    from tether_protocol.prebuild import build_shared

    build_shared()


def _skip_plugin_scan() -> None:
    """pydantic searches the entry points of every installed distribution for plugins when it
    builds its first validator. That costs about 40 ms of start-up reading package metadata, for
    observability hooks the daemon does not use (it has its own telemetry). An empty plugin table
    ends the search before it starts. `PYDANTIC_DISABLE_PLUGINS` would do the same, but every
    command, MCP server and hook the daemon starts would inherit it."""
    try:
        from pydantic.plugin import _loader
    except ImportError:  # a pydantic without plugins: nothing to skip
        return
    if getattr(_loader, "_plugins", ()) is None:
        _loader._plugins = {}
