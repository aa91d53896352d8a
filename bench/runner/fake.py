"""The fake model: `tether_testing`'s scripted Responses server in its own process.

A separate process keeps its event loop (and its CPU) apart from the benchmark client's.
`stream_ceiling` measures how fast it can stream deltas to a bare HTTP client, so a report can show
that it is never the bottleneck.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from types import TracebackType

from tether_testing.script import ScriptedResponse

_DELTA_EVENT = b"event: response.output_text.delta\n"


class FakeModel:
    """``python -m tether_testing --loop`` serving `script` on a free loopback port."""

    def __init__(self, script: list[ScriptedResponse], folder: Path) -> None:
        self._script = script
        self._folder = folder
        self._proc: asyncio.subprocess.Process | None = None
        self.base_url = ""

    async def __aenter__(self) -> FakeModel:
        self._folder.mkdir(parents=True, exist_ok=True)
        path = self._folder / "fake-script.json"
        path.write_text(json.dumps(self._script))
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tether_testing",
            "--script",
            str(path),
            "--port",
            "0",
            "--loop",
            stdout=asyncio.subprocess.PIPE,
        )
        assert self._proc.stdout is not None
        async with asyncio.timeout(15):
            line = (await self._proc.stdout.readline()).decode()
        if not line.startswith("listening on "):
            raise RuntimeError(f"the fake model did not start: {line!r}")
        self.base_url = line.removeprefix("listening on ").strip()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._proc is not None and self._proc.returncode is None:
            self._proc.terminate()
            try:
                async with asyncio.timeout(5):
                    await self._proc.wait()
            except TimeoutError:
                self._proc.kill()
                await self._proc.wait()


async def stream_ceiling(base_url: str) -> tuple[int, float]:
    """POST one model request and read the SSE answer raw; returns (deltas, seconds)."""
    host_port = base_url.removeprefix("http://").split("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    body = b'{"model":"gpt-5.5","stream":true,"input":[]}'
    head = f"POST /v1/responses HTTP/1.1\r\nhost: {host_port}\r\ncontent-type: application/json\r\n"
    head += f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    started = time.perf_counter()
    writer.write(head.encode() + body)
    received = bytearray()
    while chunk := await reader.read(1 << 18):
        received += chunk
    elapsed = time.perf_counter() - started
    writer.close()
    return received.count(_DELTA_EVENT), elapsed
