"""A loopback port held by another user never receives the daemon's bearer token.

The attack: while the daemon is down, another local user listens on its port. A client that reads
`$TETHER_HOME/ws-token` and sends it there hands the token over; replayed against the real daemon,
it opens `command/exec` with `dangerFullAccess` as the daemon's owner. The impostor here is a real
process running as `nobody` that records every byte each connection sends it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.appserver import WAIT_S
from tests.support.exec_run import git_repo, run_exec
from tether_client import Client, ForeignListener
from tether_testing.fake_responses import FakeResponsesServer

OWNER_TOKEN = "the-owners-generated-token-0123456789"

# Runs as root only long enough to become `nobody`: the socket is made afterwards, so the kernel
# lists it (and every connection it accepts) as nobody's. What it may need later is loaded first.
_IMPOSTOR = """
import json, os, pwd, socket
json.dumps(b"".decode("latin-1"))
user = pwd.getpwnam("nobody")
os.setgroups([])
os.setgid(user.pw_gid)
os.setuid(user.pw_uid)
listener = socket.socket(socket.AF_INET)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
print(listener.getsockname()[1], flush=True)
while True:
    conn, _ = listener.accept()
    received = b""
    while b"\\r\\n\\r\\n" not in received:
        chunk = conn.recv(65536)
        if not chunk:
            break
        received += chunk
    print(json.dumps(received.decode("latin-1")), flush=True)
    conn.close()
"""


class Impostor:
    """Another user's listener on a loopback port; `received()` is what the next connection sent."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int) -> None:
        self.proc = proc
        self.url = f"ws://127.0.0.1:{port}"

    async def received(self) -> str:
        assert self.proc.stdout is not None
        async with asyncio.timeout(WAIT_S):
            line = await self.proc.stdout.readline()
        assert line, "the impostor exited"
        text: str = json.loads(line)
        return text


@pytest.fixture
async def impostor() -> AsyncIterator[Impostor]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _IMPOSTOR, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    try:
        async with asyncio.timeout(WAIT_S):
            port = int(await proc.stdout.readline())
        yield Impostor(proc, port)
    finally:
        proc.kill()
        await proc.wait()


@pytest.fixture
def owner_home(tmp_path: Path) -> Path:
    """A home with the token a daemon generated on its last run (the daemon is down now)."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    fd = os.open(home / "ws-token", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, f"{OWNER_TOKEN}\n".encode())
    os.close(fd)
    return home


async def test_the_sdk_refuses_to_send_any_token_to_another_users_listener(
    impostor: Impostor, owner_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_HOME", str(owner_home))

    connecting = asyncio.create_task(Client.connect(impostor.url))
    assert OWNER_TOKEN not in await impostor.received()
    with pytest.raises(ForeignListener, match=r"held by another user \(uid \d+\)"):
        await connecting

    # A token given by hand is not handed over either.
    connecting = asyncio.create_task(Client.connect(impostor.url, token="a-token-given-by-hand"))
    assert "a-token-given-by-hand" not in await impostor.received()
    with pytest.raises(ForeignListener):
        await connecting


async def test_exec_remote_refuses_to_send_the_token_to_another_users_listener(
    impostor: Impostor, owner_home: Path, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")

    run = await run_exec(fake_model.base_url, owner_home, "--remote", impostor.url, "--cd", str(repo), "hi")

    assert OWNER_TOKEN not in await impostor.received()
    assert run.code != 0
    assert f"{impostor.url} is held by another user" in run.stderr
    assert not fake_model.requests


async def test_the_tui_refuses_to_send_the_token_to_another_users_listener(
    impostor: Impostor, owner_home: Path
) -> None:
    proc = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "tether_tui", "--connect", impostor.url),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(owner_home)},
    )
    async with asyncio.timeout(WAIT_S * 3):
        _, err = await proc.communicate()

    assert OWNER_TOKEN not in await impostor.received()
    assert proc.returncode != 0
    assert f"{impostor.url} is held by another user" in err.decode()
