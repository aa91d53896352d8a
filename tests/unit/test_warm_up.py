"""The first turn's modules load in the background once the daemon serves."""

from __future__ import annotations

import importlib

from tether_server.providers import deferred


def test_every_module_the_warm_up_loads_exists() -> None:
    # A library release that renames one would silently put its import back into the first turn.
    for name in (deferred.RESPONSES_MODULE, *deferred.ON_FIRST_CONNECTION):
        assert importlib.import_module(name).__name__ == name


def test_httpx_loads_without_its_command_line_tool() -> None:
    import subprocess
    import sys

    code = "import tether_server, httpx, sys; print('rich' in sys.modules, callable(httpx.main))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
