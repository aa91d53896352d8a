"""`fs/watch` cannot exhaust the user's inotify instances: every watch shares one instance."""

from __future__ import annotations

import os
from pathlib import Path

import inotify_simple
from tests.unit.processor.conftest import Connect

from tether_protocol.errors import ErrorCode
from tether_server.processor import fs_watch


def _inotify_instances() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify":
                count += 1
        except OSError:
            continue  # closed meanwhile (the listing's own descriptor)
    return count


async def test_many_watches_from_many_connections_share_one_inotify_instance(
    connect: Connect, tmp_path: Path
) -> None:
    before = _inotify_instances()
    # 3 x 50 watches: more than the default 128 instances a user may hold (max_user_instances).
    clients = [await connect() for _ in range(3)]
    for n, client in enumerate(clients):
        for i in range(50):
            folder = tmp_path / f"c{n}" / f"d{i}"
            folder.mkdir(parents=True)
            await client.request("fs/watch", {"path": str(folder), "watchId": f"w{i}"})
    assert _inotify_instances() - before <= 1, "one instance for the whole daemon"
    with inotify_simple.INotify() as other_program:
        other_program.add_watch(str(tmp_path), inotify_simple.flags.CREATE)

    mark = clients[2].mark()
    (tmp_path / "c2" / "d49" / "new.txt").write_text("x")
    changed = await clients[2].notification("fs/changed", after=mark)
    assert changed["params"] == {"watchId": "w49", "changedPaths": [str(tmp_path / "c2" / "d49" / "new.txt")]}

    for client in clients:
        await client.close()
    # The watches end with their connections (the disconnect path runs a loop turn later).
    await (await connect()).request("fs/getMetadata", {"path": str(tmp_path)})
    assert _inotify_instances() - before == 0, "the instance ends with the last watch"


async def test_watch_caps_answer_with_a_clear_overloaded_error(connect: Connect, tmp_path: Path) -> None:
    clients = [await connect()]
    for i in range(fs_watch.MAX_WATCHES_PER_CONNECTION):
        await clients[0].request("fs/watch", {"path": str(tmp_path), "watchId": f"w{i}"})
    reply = await clients[0].call("fs/watch", {"path": str(tmp_path), "watchId": "one-too-many"})
    error = reply["error"]
    assert error["code"] == ErrorCode.SERVER_OVERLOADED
    assert error["data"] == {"scope": "fs/watch", "limit": fs_watch.MAX_WATCHES_PER_CONNECTION}
    assert "too many watches on this connection" in error["message"]

    per_daemon = fs_watch.MAX_WATCHES_PER_DAEMON // fs_watch.MAX_WATCHES_PER_CONNECTION
    while len(clients) < per_daemon:
        client = await connect()
        clients.append(client)
        for i in range(fs_watch.MAX_WATCHES_PER_CONNECTION):
            await client.request("fs/watch", {"path": str(tmp_path), "watchId": f"w{i}"})
    late = await connect()
    refused = (await late.call("fs/watch", {"path": str(tmp_path), "watchId": "w"}))["error"]
    assert refused["code"] == ErrorCode.SERVER_OVERLOADED
    assert refused["data"] == {"scope": "fs/watch", "limit": fs_watch.MAX_WATCHES_PER_DAEMON}
    await clients[0].request("fs/unwatch", {"watchId": "w0"})
    await late.request("fs/watch", {"path": str(tmp_path), "watchId": "w"})
