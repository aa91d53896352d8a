"""The daemon's wire-model set-up: no plugin search, and models that still validate."""

from __future__ import annotations

import subprocess
import sys

_DAEMON_START = """
import sys
from tether_server import wire_models
wire_models.skip_plugin_search()
from tether_protocol.v2.thread_lifecycle import ThreadStartParams
params = ThreadStartParams.model_validate({"cwd": "/tmp", "model": "m"})
wire_models.build_shared()
print(params.cwd, params.model, "importlib.metadata" in sys.modules)
"""


def test_models_build_without_reading_every_installed_distribution() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _DAEMON_START], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert out.split() == ["/tmp", "m", "False"]


def test_skipping_after_pydantic_searched_already_is_harmless() -> None:
    from pydantic import BaseModel

    from tether_server import wire_models

    class Late(BaseModel):
        n: int

    wire_models.skip_plugin_search()
    assert Late.model_validate({"n": 1}).n == 1
