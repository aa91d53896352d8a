"""AF_UNIX datagrams to host sockets with network off, under real bwrap (issue 24 item 13d).

The network namespace keeps the abstract socket namespace apart, but a socket file visible in the
mount namespace is reachable by its path: connect and sendto were denied by seccomp, sendmsg with
a destination was not.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integration.sandbox.test_sandbox_network_real import Run, python_argv

from tether_server.sandbox import SandboxCapability, SandboxPolicy

REACH = """
import socket, sys
path = sys.argv[1]
def attempt(name, fn):
    try:
        fn()
        print(name, "ok")
    except OSError as exc:
        print(name, exc.errno)
def datagram():
    return socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
attempt("sendto", lambda: datagram().sendto(b"via-sendto", path))
attempt("sendmsg", lambda: datagram().sendmsg([b"via-sendmsg"], [], 0, path))
attempt("connect", lambda: datagram().connect(path))
def pair():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.sendmsg([b"x"])
    assert b.recv(1) == b"x"
attempt("socketpair", pair)
attempt("stream", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
"""


@pytest.fixture
def host_datagram_socket(shared_dir: Path) -> Iterator[tuple[Path, socket.socket]]:
    path = shared_dir / "log.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    path.chmod(0o777)
    sock.setblocking(False)
    try:
        yield path, sock
    finally:
        sock.close()


def _received(sock: socket.socket) -> list[bytes]:
    got = []
    while True:
        try:
            got.append(sock.recv(256))
        except BlockingIOError:
            return got


async def test_a_host_datagram_socket_gets_nothing_from_a_sandbox_without_network(
    capability: SandboxCapability,
    run_sandboxed: Run,
    workspace: Path,
    host_datagram_socket: tuple[Path, socket.socket],
) -> None:
    path, sock = host_datagram_socket
    outcome = await run_sandboxed(
        SandboxPolicy(kind="read-only"), workspace, [*python_argv(REACH), str(path)], capability
    )
    results = dict(line.split() for line in outcome.stdout.splitlines())
    assert results == {
        "sendto": "1",
        "sendmsg": "1",
        "connect": "1",
        "socketpair": "ok",
        "stream": "ok",
    }, outcome
    assert _received(sock) == []
