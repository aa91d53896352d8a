"""What parts of the suite need from the machine beyond Python, and which of it is missing.

`./scripts/install-prereqs` installs all of it. A test whose prerequisite is missing is not run: the
run reports them in one summary line (and fails), instead of a wall of tracebacks that all say the
same thing.
"""

from __future__ import annotations

import ctypes.util
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.support import postgres

CODEX_VERSION = "0.169.0"
CODEX_BIN = (
    Path(os.environ.get("TETHER_CODEX_PREFIX", Path.home() / ".cache" / "tether-ci" / "codex"))
    / "node_modules"
    / ".bin"
    / "codex"
)
NODE_SDK = Path(os.environ.get("TETHER_NODE_PREFIX", Path.home() / ".cache" / "tether-test-node")) / (
    "node_modules/@openai/codex-sdk/package.json"
)


@dataclass(frozen=True)
class Need:
    name: str
    folders: tuple[str, ...]
    """Paths under tests/ (folders or files) whose tests need it."""


def _codex_ok() -> bool:
    try:
        out = subprocess.run([str(CODEX_BIN), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.stdout.strip() == f"codex-cli {CODEX_VERSION}"


# Every store test runs on PostgreSQL too (tests/support/postgres.py starts a throwaway cluster).
_POSTGRES = ("unit/store", "integration/store_postgres")
_SANDBOXED = ("integration", "chaos", "e2e", "conformance", "docs", "unit/sandbox")
_CHECKS: list[tuple[Need, Callable[[], bool]]] = [
    (Need("bubblewrap (bwrap)", _SANDBOXED), lambda: shutil.which("bwrap") is not None),
    (Need("tmux", ("e2e/codex_tui",)), lambda: shutil.which("tmux") is not None),
    (Need(f"the Codex CLI {CODEX_VERSION} at {CODEX_BIN}", ("e2e/codex_tui",)), _codex_ok),
    (Need("node", ("e2e/test_node_sdk.py", "docs")), lambda: shutil.which("node") is not None),
    (Need(f"the TypeScript SDK at {NODE_SDK.parents[2]}", ("e2e/test_node_sdk.py",)), NODE_SDK.is_file),
    (Need("jq", ("docs",)), lambda: shutil.which("jq") is not None),
    (Need("curl", ("docs",)), lambda: shutil.which("curl") is not None),
    (Need("libfuse2", ("chaos/test_readonly_db.py",)), lambda: ctypes.util.find_library("fuse") is not None),
    (Need("PostgreSQL (initdb, pg_ctl; as root also the postgres user)", _POSTGRES), postgres.available),
]


@cache
def missing() -> list[Need]:
    return [need for need, present in _CHECKS if not present()]


def unmet(relative: str) -> list[str]:
    """The missing prerequisites of the test file at `relative` (a path under tests/)."""
    return [
        need.name
        for need in missing()
        if any(relative == f or relative.startswith(f.rstrip("/") + "/") for f in need.folders)
    ]
