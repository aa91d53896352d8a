"""Fuzzed frames for every method, interleaved with valid traffic, over stdio and WebSocket.

One daemon per transport lives through every example. It must never die, answer every request
exactly once, and answer a valid request after each batch.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.chaos.conftest import FULL, scale
from tests.chaos.wirefuzz import Frame, frames
from tests.support.appserver import AppServer, mock_provider_args
from tests.support.rpcclient import RpcClient
from tests.support.wsclient import SocketServer, WsClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

EXAMPLES = scale(ci=100, full=3000)
ANSWER_S = 10.0


class Harness:
    """One daemon and one client of it, on a private event loop that outlives the examples."""

    def __init__(self, tmp_path: Path, transport: str) -> None:
        self.tmp_path, self.transport = tmp_path, transport
        self.loop = asyncio.new_event_loop()
        self.fake = FakeResponsesServer([script.text_reply("fuzzed turn done")], loop_script=True)
        self.client: RpcClient | None = None
        self.server: AppServer | SocketServer | None = None
        self.threads: list[str] = []
        self.answerable: list[Any] = []
        self.sent = 0
        self.scratch = tmp_path / "scratch"
        self.scratch.mkdir()

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    async def start(self) -> None:
        await self.fake.start()
        home = self.tmp_path / "home"
        env = {
            "PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring",
            "XDG_DATA_HOME": str(self.tmp_path / "xdg"),
        }
        os.environ.update(env)  # the daemon inherits it; this test process runs no keyring itself
        # ChatGPT sign-in and its backend would leave the machine: point them at a closed loopback port.
        nowhere = "http://127.0.0.1:9"
        args = [
            *mock_provider_args(self.fake.base_url),
            *("-c", f'tether.chatgpt_issuer="{nowhere}"', "-c", "tether.chatgpt_login_port=0"),
            *("-c", f'chatgpt_base_url="{nowhere}/backend-api"'),
        ]
        if self.transport == "stdio":
            self.server = self.client = await AppServer.start(home, args)
        else:
            self.server = await SocketServer.start(home, [*args, "--listen", "ws://127.0.0.1:0"])
            self.client = await self.server.connect_ws()
        await self.client.initialize("fuzzer")
        workdir = self.tmp_path / "project"
        workdir.mkdir(exist_ok=True)
        for _ in range(2):
            started = await self.client.request("thread/start", {"cwd": str(workdir)})
            self.threads.append(started["thread"]["id"])

    async def send(self, frame: Frame) -> None:
        assert self.client is not None
        if isinstance(self.client, WsClient):
            try:
                text = frame.data.decode()
            except UnicodeDecodeError:
                await self.client.ws.send(frame.data)
                return
            await self.client.ws.send(text)
        else:
            await self.client.send_raw(frame.data + b"\n")

    def answers(self) -> Counter[str]:
        assert self.client is not None
        return Counter(json.dumps(m["id"]) for m in self.client.messages if "id" in m and "method" not in m)

    async def exchange(self, batch: list[Frame]) -> None:
        assert self.client is not None
        for frame in batch:
            await self.send(frame)
            self.sent += 1
            if frame.answerable:
                self.answerable.append(frame.request_id)
        wanted = [json.dumps(f.request_id) for f in batch if f.answerable]
        try:
            async with asyncio.timeout(ANSWER_S):
                while unanswered := [key[:60] for key in wanted if self.answers()[key] == 0]:
                    assert not self.client.ended(), "the daemon closed the connection"
                    self.client._arrived.clear()
                    await self.client._arrived.wait()
        except TimeoutError:
            dump = self.tmp_path / "unanswered.jsonl"
            dump.write_bytes(b"".join(f.data + b"\n" for f in batch))
            raise AssertionError(
                f"not answered within {ANSWER_S}s: {unanswered} (frames in {dump})"
            ) from None
        # A valid request after the batch still works.
        await self.client.request("thread/loaded/list", {})

    async def close(self) -> None:
        if isinstance(self.server, AppServer):
            await self.server.close(check=False)
        elif self.server is not None:
            assert isinstance(self.client, WsClient)
            await self.client.close(check=False)
            await self.server.stop()
        await self.fake.stop()


@pytest.mark.parametrize("transport", ["stdio", "ws"])
def test_fuzzed_frames_never_kill_the_daemon_and_each_request_is_answered_once(
    tmp_path: Path, transport: str
) -> None:
    harness = Harness(tmp_path, transport)
    try:
        harness.run(harness.start())

        @settings(
            max_examples=EXAMPLES,
            derandomize=not FULL,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],  # shrinking waits out every timeout again
            suppress_health_check=list(HealthCheck),
        )
        @given(batch=frames(harness.threads, harness.scratch))
        def exchange(batch: list[Frame]) -> None:
            harness.run(harness.exchange(batch))

        exchange()
        assert harness.server is not None and harness.server.proc.returncode is None, "the daemon died"
        counts = harness.answers()
        twice = {key: n for key, n in counts.items() if n > 1 and key != "null"}
        assert not twice, f"requests answered more than once: {list(twice.items())[:5]}"
        missing = [rid for rid in harness.answerable if counts[json.dumps(rid)] == 0]
        assert not missing, f"requests never answered: {missing[:5]}"
        print(f"wire fuzz {transport}: {harness.sent} frames, {len(harness.answerable)} requests")
    finally:
        harness.run(harness.close())
        harness.loop.close()
