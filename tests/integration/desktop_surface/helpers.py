"""Shared steps of the desktop-surface tests: a thread with a first turn, and errors as Codex."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.rpcclient import RpcClient, RpcErrorReply

PINNED = "01984de2-8f74-7c91-a3b2-5c5e937cf318"
UNKNOWN_ID = "019e0000-0000-7000-8000-000000000000"


async def thread(server: RpcClient, workdir: Path) -> str:
    started = await server.request("thread/start", {"cwd": str(workdir)})
    return str(started["thread"]["id"])


async def turn(server: RpcClient, tid: str, text: str) -> None:
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": text}]})
    await server.notification("turn/completed", after=mark)


async def listed_thread(server: RpcClient, workdir: Path, text: str) -> str:
    """A thread with one turn: one `thread/list` shows."""
    tid = await thread(server, workdir)
    await turn(server, tid, text)
    return tid


async def refused(server: RpcClient, method: str, params: dict[str, Any]) -> tuple[Any, str]:
    """The (code, message) of the error `method` answers."""
    with pytest.raises(RpcErrorReply) as caught:
        await server.request(method, params)
    return caught.value.code, str(caught.value.message)
