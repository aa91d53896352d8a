"""Files the model controls cannot freeze or bloat the daemon (issue 24, items 5 and 6).

The attacks: a process swaps AGENTS.md between a file and a FIFO nobody writes to, so that the
daemon checks a file and opens a FIFO (it blocked its event loop for good); `mkfifo .gitignore`
hangs `fuzzyFileSearch` in worker threads every client shares, until an unrelated client's
`fs/readFile` is never answered; `truncate -s 512M AGENTS.md` made the daemon read half a
gigabyte into memory for a 32 KiB budget.
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import StartServer
from tests.support.appserver import AppServer, mock_provider_args
from tests.support.rpcclient import RpcClient
from tests.support.wsclient import SocketServer, WsClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

ANSWER_S = 5.0  # what "promptly" means here; a loaded two-core machine answers in milliseconds
# AGENTS.md is always there, a file or a FIFO in turn (about as long each), put in place atomically.
SWAPS = """
import os, sys
path = os.path.join(sys.argv[1], "AGENTS.md")
with open(path + ".src", "w") as f:
    f.write("Swapped instructions.")
while True:
    os.link(path + ".src", path + ".file")
    os.replace(path + ".file", path)
    os.mkfifo(path + ".fifo")
    os.replace(path + ".fifo", path)
"""


@pytest.fixture
async def daemon(tmp_path: Path, fake_model: FakeResponsesServer) -> AsyncIterator[SocketServer]:
    """A real daemon on its control socket: several clients, and a frozen one is killed at the end."""
    args = [*mock_provider_args(fake_model.base_url), "--listen", "unix://"]
    server = await SocketServer.start(tmp_path / "home", args)
    yield server
    if server.proc.returncode is None:
        server.proc.kill()
        await server.proc.wait()


async def _client(server: SocketServer, opened: list[WsClient]) -> WsClient:
    client = await server.connect_unix()
    opened.append(client)
    await client.initialize()
    return client


async def _read_answers(client: RpcClient, path: Path) -> None:
    result = await client.request("fs/readFile", {"path": str(path)}, within_s=ANSWER_S)
    assert base64.b64decode(result["dataBase64"]) == b"unrelated\n"


async def test_agents_md_swapped_with_a_fifo_does_not_freeze_the_daemon(
    daemon: SocketServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    (workdir / ".git").mkdir()
    # A deep working directory: every folder from the project root down is looked at, which
    # leaves time for the swap between the look at the root's AGENTS.md and its opening.
    cwd = workdir.joinpath(*["a"] * 200)
    cwd.mkdir(parents=True)
    other_file = tmp_path / "other.txt"
    other_file.write_text("unrelated\n")
    attempts = 20
    fake_model.add(*[script.text_reply("ok") for _ in range(attempts)])
    opened: list[WsClient] = []
    swapper = await asyncio.create_subprocess_exec(sys.executable, "-c", SWAPS, str(workdir))
    try:
        user, other = await _client(daemon, opened), await _client(daemon, opened)
        # Each new thread reads AGENTS.md at its first turn, while it flips between file and FIFO.
        for _ in range(attempts):
            started = await user.request("thread/start", {"cwd": str(cwd)}, within_s=ANSWER_S)
            mark = user.mark()
            turn = {"threadId": started["thread"]["id"], "input": [{"type": "text", "text": "go"}]}
            await user.request("turn/start", turn, within_s=ANSWER_S)
            done = await user.notification("turn/completed", after=mark, within_s=ANSWER_S * 2)
            assert done["params"]["turn"]["status"] == "completed"
            await _read_answers(other, other_file)
    finally:
        swapper.kill()
        await swapper.wait()
        for client in opened:
            await client.close(check=False)


async def test_a_fifo_gitignore_does_not_starve_other_clients(
    daemon: SocketServer, workdir: Path, tmp_path: Path
) -> None:
    (workdir / "main.py").write_text("print()\n")
    os.mkfifo(workdir / ".gitignore")
    other_file = tmp_path / "other.txt"
    other_file.write_text("unrelated\n")
    opened: list[WsClient] = []
    try:
        # Two connections at their file-work cap: more jobs than the loop's default executor has threads.
        searchers = [await _client(daemon, opened) for _ in range(2)]
        params = {"query": "main", "roots": [str(workdir)], "cancellationToken": None}
        searches = [
            asyncio.create_task(searcher.request("fuzzyFileSearch", params, within_s=60.0))
            for searcher in searchers
            for _ in range(4)
        ]
        other = await _client(daemon, opened)
        await _read_answers(other, other_file)
        started = await other.request("thread/start", {"cwd": str(workdir)}, within_s=ANSWER_S)
        assert started["thread"]["id"]
        async with asyncio.timeout(ANSWER_S):
            results = await asyncio.gather(*searches)
        assert all([f["path"] for f in r["files"]] == ["main.py"] for r in results)
    finally:
        for client in opened:
            await client.close(check=False)


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


async def test_a_huge_agents_md_is_read_only_to_the_budget(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    (workdir / ".git").mkdir()
    agents = workdir / "AGENTS.md"
    agents.write_text("Start of the instructions.\n")
    os.truncate(agents, 512 * 1024 * 1024)  # sparse: no disk, but 512 MiB for whoever reads it whole
    budget = 4096
    fake_model.add(script.text_reply("ok"))
    server: AppServer = await start_server("-c", f"project_doc_max_bytes={budget}")
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    before = _peak_rss_kib(server.proc.pid)
    mark = server.mark()
    turn = {"threadId": thread["thread"]["id"], "input": [{"type": "text", "text": "go"}]}
    await server.request("turn/start", turn, within_s=ANSWER_S)
    await server.notification("turn/completed", after=mark, within_s=ANSWER_S)

    assert _peak_rss_kib(server.proc.pid) - before < 64 * 1024
    texts = [c["text"] for m in fake_model.requests[0].body["input"] for c in m.get("content", [])]
    section = next(t for t in texts if t.startswith("# AGENTS.md instructions"))
    instructions = section.split("<INSTRUCTIONS>\n", 1)[1].rsplit("\n</INSTRUCTIONS>", 1)[0]
    assert instructions.startswith("Start of the instructions.")
    assert len(instructions.encode()) <= budget
