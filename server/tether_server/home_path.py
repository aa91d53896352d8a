"""Where Tether's home is. Standard library only: the stdio front names it before anything loads."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def tether_home(environ: Mapping[str, str] | None = None) -> Path:
    """`$TETHER_HOME`, else `$CODEX_HOME` (tools written for Codex set it), else `~/.tether`."""
    env = os.environ if environ is None else environ
    value = env.get("TETHER_HOME", "").strip() or env.get("CODEX_HOME", "").strip()
    return Path(value).expanduser() if value else Path.home() / ".tether"
