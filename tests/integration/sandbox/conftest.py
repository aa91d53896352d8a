"""Fixtures for the real-bwrap sandbox tests. They need bubblewrap installed (CI installs it)."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from tether_server.sandbox import SandboxCapability, SandboxPolicy, prepare, probe_sandbox

AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
RUN_LIMIT_S = 20.0
Outcome = subprocess.CompletedProcess[str]


async def _run_sandboxed(
    policy: SandboxPolicy,
    cwd: Path,
    argv: Sequence[str],
    capability: SandboxCapability,
    *,
    hidden_paths: Sequence[Path] = (),
    as_nobody: bool = False,
    env: Mapping[str, str] | None = None,
    workdir: Path | None = None,
) -> Outcome:
    """Prepare `argv` for `policy`, run it to completion, clean up, and return what it printed."""
    prepared = prepare(
        policy, cwd, argv, capability, hidden_paths=hidden_paths, env=env or {}, workdir=workdir
    )
    full = [*AS_NOBODY, *prepared.argv] if as_nobody else prepared.argv
    try:
        proc = await asyncio.create_subprocess_exec(
            *full,
            cwd=workdir or cwd,
            pass_fds=prepared.pass_fds,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        async with asyncio.timeout(RUN_LIMIT_S):
            out, err = await proc.communicate()
    finally:
        prepared.cleanup()
    return Outcome(full, proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace"))


@pytest.fixture
def run_sandboxed() -> Callable[..., Awaitable[Outcome]]:
    """`await run_sandboxed(policy, cwd, argv, capability, hidden_paths=, as_nobody=, env=, workdir=)`."""
    return _run_sandboxed


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


class Listeners:
    """Real unix listeners (mode 0777, so only the sandbox stands in the way of `nobody`)."""

    def __init__(self) -> None:
        self.sockets: list[socket.socket] = []

    def listen(self, path: Path) -> Path:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        path.chmod(0o777)
        sock.listen(8)
        sock.setblocking(False)
        self.sockets.append(sock)
        return path

    def accepted(self) -> list[str]:
        """The sockets a client connected to (pending in the backlog) since the last call."""
        reached: list[str] = []
        for sock in self.sockets:
            try:
                conn, _ = sock.accept()
            except BlockingIOError:
                continue
            conn.close()
            reached.append(str(sock.getsockname()))
        return reached


@pytest.fixture
def listeners() -> Iterator[Listeners]:
    found = Listeners()
    yield found
    for sock in found.sockets:
        sock.close()
