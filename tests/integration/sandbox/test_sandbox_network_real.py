"""Network confinement and the seccomp filter under real bwrap."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tether_server.sandbox import SandboxCapability, SandboxPolicy

Run = Callable[..., Awaitable[CompletedProcess[str]]]


def python_argv(code: str) -> list[str]:
    """Stdlib-only Python inside the sandbox (root tests only: nobody cannot read root's pyenv)."""
    return [sys.executable, "-I", "-S", "-c", code]


CONNECT_TCP = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3).close()
    print("connected")
except OSError as exc:
    print("failed", exc.errno)
"""
CONNECT_UNIX = """
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
    print("connected")
except OSError as exc:
    print("failed", exc.errno)
"""
SYSCALL_PROBES = """
import ctypes, errno, socket
def attempt(name, fn):
    try:
        fn()
        print(name, "ok")
    except OSError as exc:
        print(name, errno.errorcode[exc.errno])
libc = ctypes.CDLL(None, use_errno=True)
def raw(nr, *args):
    if libc.syscall(nr, *args) == -1:
        err = ctypes.get_errno()
        raise OSError(err, "")
attempt("inet", lambda: socket.socket(socket.AF_INET).close())
attempt("inet6", lambda: socket.socket(socket.AF_INET6).close())
attempt("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW).close())
attempt("unix", lambda: socket.socket(socket.AF_UNIX).close())
attempt("socketpair", lambda: [s.close() for s in socket.socketpair()])
attempt("bind", lambda: socket.socket(socket.AF_UNIX).bind("\\0tether-probe"))
attempt("io_uring_setup", lambda: raw(425, 1, ctypes.create_string_buffer(120)))
attempt("ptrace", lambda: raw({"x86_64": 101, "aarch64": 117}[__import__("platform").machine()], 0, 0, 0, 0))
"""


@dataclass
class Listener:
    port: int
    accepted: asyncio.Event


@pytest.fixture
async def tcp_listener() -> AsyncIterator[Listener]:
    accepted = asyncio.Event()

    def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.set()
        writer.close()

    server = await asyncio.start_server(on_client, "127.0.0.1", 0)
    async with server:
        yield Listener(server.sockets[0].getsockname()[1], accepted)


@pytest.fixture
async def unix_listener(shared_dir: Path) -> AsyncIterator[tuple[Path, asyncio.Event]]:
    accepted = asyncio.Event()

    def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.set()
        writer.close()

    (shared_dir / "daemon").mkdir()
    path = shared_dir / "daemon" / "tether.sock"
    server = await asyncio.start_unix_server(on_client, path)
    async with server:
        yield path, accepted


async def test_tcp_to_a_loopback_server_fails_with_network_off(
    capability: SandboxCapability, run_sandboxed: Run, tmp_path: Path, tcp_listener: Listener
) -> None:
    for strict in (True, False):
        policy = SandboxPolicy(kind="workspace-write", strict_network_syscalls=strict)
        code = [*python_argv(CONNECT_TCP), str(tcp_listener.port)]
        outcome = await run_sandboxed(policy, tmp_path, code, capability)
        assert outcome.stdout.startswith("failed"), outcome
    assert not tcp_listener.accepted.is_set()


async def test_tcp_to_a_loopback_server_fails_with_network_off_as_nobody(
    capability: SandboxCapability, run_sandboxed: Run, tcp_listener: Listener
) -> None:
    script = f"echo hi > /dev/tcp/127.0.0.1/{tcp_listener.port} && echo connected"
    outcome = await run_sandboxed(
        SandboxPolicy(kind="read-only"), Path("/"), ["bash", "-c", script], capability, as_nobody=True
    )
    assert "connected" not in outcome.stdout
    assert "Operation not permitted" in outcome.stderr
    assert not tcp_listener.accepted.is_set()


async def test_tcp_to_a_loopback_server_works_with_network_on(
    capability: SandboxCapability, run_sandboxed: Run, tmp_path: Path, tcp_listener: Listener
) -> None:
    policy = SandboxPolicy(kind="workspace-write", network_access=True)
    outcome = await run_sandboxed(
        policy, tmp_path, [*python_argv(CONNECT_TCP), str(tcp_listener.port)], capability
    )
    assert outcome.stdout.strip() == "connected", outcome
    async with asyncio.timeout(5):
        await tcp_listener.accepted.wait()


async def test_a_unix_socket_in_a_hidden_directory_cannot_be_reached(
    capability: SandboxCapability,
    run_sandboxed: Run,
    tmp_path: Path,
    unix_listener: tuple[Path, asyncio.Event],
) -> None:
    path, accepted = unix_listener
    # Family-only filter: the mask, not seccomp, is what keeps the daemon socket out of reach.
    lenient = SandboxPolicy(kind="read-only", strict_network_syscalls=False)
    hidden = await run_sandboxed(
        lenient, tmp_path, [*python_argv(CONNECT_UNIX), str(path)], capability, hidden_paths=[path.parent]
    )
    assert hidden.stdout.startswith("failed"), hidden
    assert not accepted.is_set()
    visible = await run_sandboxed(lenient, tmp_path, [*python_argv(CONNECT_UNIX), str(path)], capability)
    assert visible.stdout.strip() == "connected", visible


async def test_strict_mode_denies_connecting_to_any_host_unix_socket(
    capability: SandboxCapability,
    run_sandboxed: Run,
    tmp_path: Path,
    unix_listener: tuple[Path, asyncio.Event],
) -> None:
    path, accepted = unix_listener
    outcome = await run_sandboxed(
        SandboxPolicy(kind="read-only"), tmp_path, [*python_argv(CONNECT_UNIX), str(path)], capability
    )
    assert outcome.stdout.strip() == "failed 1", outcome  # EPERM
    assert not accepted.is_set()


async def test_seccomp_denies_network_families_io_uring_and_ptrace_with_network_off(
    capability: SandboxCapability, run_sandboxed: Run, tmp_path: Path
) -> None:
    outcome = await run_sandboxed(
        SandboxPolicy(kind="read-only"), tmp_path, python_argv(SYSCALL_PROBES), capability
    )
    results = dict(line.split() for line in outcome.stdout.splitlines())
    assert results == {
        "inet": "EPERM",
        "inet6": "EPERM",
        "netlink": "EPERM",
        "unix": "ok",
        "socketpair": "ok",
        "bind": "EPERM",
        "io_uring_setup": "EPERM",
        "ptrace": "EPERM",
    }, outcome.stderr


async def test_network_on_keeps_sockets_but_still_denies_io_uring(
    capability: SandboxCapability, run_sandboxed: Run, tmp_path: Path
) -> None:
    policy = SandboxPolicy(kind="read-only", network_access=True)
    outcome = await run_sandboxed(policy, tmp_path, python_argv(SYSCALL_PROBES), capability)
    results = dict(line.split() for line in outcome.stdout.splitlines())
    assert results["inet"] == "ok"
    assert results["bind"] == "ok"
    assert results["io_uring_setup"] == "EPERM"
