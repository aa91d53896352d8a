"""fs/readFile stops at the daemon itself: its /proc entries, its private files, and non-regular files.

The attacks: a client reads `/proc/self/environ` (the provider key is in the daemon's environment),
the same through `/proc/<pid>`, a thread id or a symlink, the thread database; or hangs the daemon's
worker threads on a FIFO nobody writes to.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from tests.conftest import StartServer
from tests.support.appserver import AppServer, RpcErrorReply, mock_provider_args
from tests.support.wsclient import SocketServer
from tether_testing.fake_responses import FakeResponsesServer

SECRET = "sk-tether-test-provider-key-0123456789"


async def _refused(server: AppServer, path: str | Path) -> RpcErrorReply:
    with pytest.raises(RpcErrorReply) as refused:
        await server.request("fs/readFile", {"path": str(path)})
    assert SECRET not in str(refused.value.message)
    return refused.value


@pytest.fixture
async def server(start_server: StartServer) -> AppServer:
    return await start_server(env={"TETHER_TEST_PROVIDER_KEY": SECRET})


async def test_the_daemons_own_environment_cannot_be_read(server: AppServer, tmp_path: Path) -> None:
    pid = server.proc.pid
    # Answered by the full server: a stdio daemon may answer `initialize` while a loader thread
    # still runs, and that thread is gone by the time it would be read.
    await server.request("thread/loaded/list", {})
    threads = [tid for tid in os.listdir(f"/proc/{pid}/task") if tid != str(pid)]
    link = tmp_path / "innocent.txt"
    link.symlink_to("/proc/self/environ")
    paths: list[str | Path] = [
        "/proc/self/environ",
        "/proc/thread-self/environ",
        f"/proc/{pid}/environ",
        f"/proc/{pid}/task/{pid}/environ",
        f"/proc/{pid}/cmdline",
        f"/proc/{pid}/root/proc/{pid}/environ",
        link,
    ]
    paths += [f"/proc/{tid}/environ" for tid in threads[:1]]  # a thread id is a /proc entry too
    for path in paths:
        error = await _refused(server, path)
        assert error.code == -32600 and "access denied" in error.message, path


async def test_the_daemons_private_files_cannot_be_read(server: AppServer) -> None:
    home = server.home
    await server.request("thread/start", {"cwd": str(home.parent)})
    for path in [home / "tether.sqlite", home / "tether.sqlite-wal", home / "server.stderr.log"]:
        error = await _refused(server, path)
        assert "private to the server" in error.message, path
    error = await _refused(server, f"{home}/../{home.name}/tether.sqlite")
    assert "private to the server" in error.message


async def test_a_fifo_is_refused_promptly_and_the_daemon_keeps_serving(
    server: AppServer, tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    # Nobody writes to the FIFO: opening it for reading would block a worker thread forever.
    for _ in range(8):
        error = await _refused(server, fifo)
        assert error.message == f"not a regular file: {fifo}"
    assert (await server.request("thread/loaded/list", {}))["data"] == []


async def test_directories_and_devices_are_refused(server: AppServer, tmp_path: Path) -> None:
    assert (await _refused(server, tmp_path)).message == f"not a regular file: {tmp_path}"
    assert (await _refused(server, "/dev/zero")).message == "not a regular file: /dev/zero"


async def test_a_nul_byte_is_invalid_params(server: AppServer) -> None:
    error = await _refused(server, "/etc/hostname\u0000.txt")
    assert error.code == -32602


async def test_ordinary_files_are_still_read(server: AppServer, tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_bytes(b"plain text\n")
    result = await server.request("fs/readFile", {"path": str(target)})
    assert base64.b64decode(result["dataBase64"]) == b"plain text\n"
    other = await server.request("fs/readFile", {"path": "/proc/1/status"})
    assert base64.b64decode(other["dataBase64"]).startswith(b"Name:")


async def test_the_same_refusals_over_an_authenticated_websocket(
    tmp_path: Path, fake_model: FakeResponsesServer
) -> None:
    args = [*mock_provider_args(fake_model.base_url), "--listen", "ws://127.0.0.1:0"]
    server = await SocketServer.start(tmp_path / "home", args, env={"TETHER_TEST_PROVIDER_KEY": SECRET})
    try:
        client = await server.connect_ws()
        await client.initialize()
        for path in ["/proc/self/environ", f"/proc/{server.proc.pid}/environ", str(server.home / "ws-token")]:
            reply = await client.call("fs/readFile", {"path": path})
            assert reply["error"]["code"] == -32600 and "access denied" in reply["error"]["message"], path
            assert SECRET not in str(reply)
        await client.close()
    finally:
        await server.stop()
