"""The W3 floor: a trivial Python JSONL app-server, the rate a minimal Python server reaches.

``python -m bench.runner.floor BASE_URL`` speaks just enough of the protocol for W3 over stdio:
``initialize``, ``thread/start`` and ``turn/start``, whose turn posts one request to the fake
model's Responses endpoint, parses the SSE stream and writes one ``item/agentMessage/delta``
notification per delta, then ``turn/completed``. It is deliberately plain (asyncio streams, a
naive SSE split, orjson, one write per notification, a drain per body chunk): what anyone would
write first, with no persistence, no validation and no fan-out. Tether's W3 rate is reported as a
share of this one's.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from typing import Any

import orjson

Json = dict[str, Any]
DELTA = "item/agentMessage/delta"


class FloorServer:
    """One stdio connection; turns run one at a time on the reader's task."""

    def __init__(self, base_url: str, out: asyncio.StreamWriter) -> None:
        self._base = base_url.rstrip("/")
        self._out = out

    def _write(self, message: Json) -> None:
        self._out.write(orjson.dumps(message) + b"\n")

    def _notify(self, method: str, params: Json) -> None:
        self._write({"method": method, "params": params, "emittedAtMs": time.time_ns() // 1_000_000})

    async def handle(self, message: Json) -> None:
        method, rid = message.get("method"), message.get("id")
        if rid is None:
            return
        params = message.get("params") or {}
        if method == "initialize":
            self._write({"id": rid, "result": {"userAgent": "floor/0.1.0"}})
        elif method == "thread/start":
            self._write({"id": rid, "result": {"thread": {"id": str(uuid.uuid4())}}})
        elif method == "turn/start":
            turn: Json = {"id": str(uuid.uuid4()), "items": [], "status": "inProgress", "error": None}
            self._write({"id": rid, "result": {"turn": turn}})
            await self._out.drain()
            await self._turn(str(params.get("threadId")), turn)
        else:
            self._write({"id": rid, "error": {"code": -32601, "message": f"unknown method {method}"}})
        await self._out.drain()

    async def _turn(self, thread_id: str, turn: Json) -> None:
        self._notify("turn/started", {"threadId": thread_id, "turn": turn})
        async for event in self._model_events():
            if event.get("type") == "response.output_text.delta":
                params = {
                    "threadId": thread_id,
                    "turnId": turn["id"],
                    "itemId": event.get("item_id"),
                    "delta": event.get("delta"),
                }
                self._notify(DELTA, params)
        self._notify("turn/completed", {"threadId": thread_id, "turn": {**turn, "status": "completed"}})

    async def _model_events(self) -> Any:
        host_port = self._base.removeprefix("http://").split("/", 1)[0]
        path = "/" + self._base.removeprefix("http://").split("/", 1)[1] + "/responses"
        host, port = host_port.rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        body = orjson.dumps({"model": "gpt-5.5", "stream": True, "input": []})
        head = f"POST {path} HTTP/1.1\r\nhost: {host_port}\r\ncontent-type: application/json\r\n"
        head += f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
        writer.write(head.encode() + body)
        await reader.readuntil(b"\r\n\r\n")  # status line and headers; the body is chunked
        pending = b""
        try:
            while True:
                size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                if size == 0:
                    return
                pending += (await reader.readexactly(size + 2))[:-2]
                *events, pending = pending.split(b"\n\n")
                for raw in events:
                    for line in raw.split(b"\n"):
                        if line.startswith(b"data: "):
                            yield orjson.loads(line[6:])
                await self._out.drain()
        finally:
            writer.close()


async def _main(base_url: str) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(0, "rb", 0))
    out_pipe = os.fdopen(os.dup(1), "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out_pipe)
    server = FloorServer(base_url, asyncio.StreamWriter(transport, protocol, None, loop))
    while line := await reader.readline():
        if line.strip():
            await server.handle(orjson.loads(line))


if __name__ == "__main__":
    try:  # the event loop Tether runs on, so that the floor measures the server, not the loop
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency on unix
        asyncio.run(_main(sys.argv[1]))
    else:
        uvloop.run(_main(sys.argv[1]))
