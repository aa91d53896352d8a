"""Fixtures for the real-bwrap sandbox tests. They need bubblewrap installed (CI installs it)."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether_server.sandbox import SandboxCapability, probe_sandbox


@pytest.fixture(scope="session")
def capability() -> SandboxCapability:
    """The real probe result; a machine that cannot sandbox fails these tests rather than skipping."""
    result = asyncio.run(probe_sandbox())
    if not result.available:
        pytest.fail(f"sandbox unavailable: {result.reason}; fix: {result.fix}")
    return result


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A world-writable directory directly under /tmp, reachable by `nobody`."""
    path = Path(tempfile.mkdtemp(prefix="tether-sbx-", dir="/tmp"))
    path.chmod(0o777)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def workspace(shared_dir: Path) -> Path:
    """A world-writable workspace with a world-writable `.git`, so only the sandbox protects it."""
    root = shared_dir / "w"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    for path in (root, root / ".git"):
        path.chmod(0o777)
    (root / ".git" / "HEAD").chmod(0o666)
    return root
