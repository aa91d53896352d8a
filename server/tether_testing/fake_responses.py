"""A scripted fake of the OpenAI Responses API: a real HTTP/1.1 + SSE server on loopback.

Use it in a test::

    async with FakeResponsesServer([text_reply("Hello there")]) as fake:
        provider = ResponsesProvider(ProviderSettings("fake", fake.base_url))
        ...
        assert fake.requests[0].body["stream"] is True

or standalone: ``python -m tether_testing.fake_responses --script FILE.json [--port N]``.
Out-of-process controls: ``POST /_fake/release/NAME`` opens a gate, ``GET /_fake/requests``
lists the recorded requests.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from tether_testing.script import ScriptedResponse, Step, load_script

_FLUSH_BYTES = 64 * 1024
_MAX_HEAD_BYTES = 64 * 1024
_RELEASE_PREFIX = "/_fake/release/"


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received. Header names are lower-case."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    method: str = "POST"
    query: str = ""
    raw_body: bytes = field(default=b"", repr=False)

    def header(self, name: str) -> str | None:
        """The value of header `name` (case-insensitive), or None."""
        return self.headers.get(name.lower())


class _ClientGone(Exception):
    """The connection is finished: closed by the peer or dropped on purpose."""


class FakeResponsesServer:
    """Plays back scripted responses, one per ``POST …/responses``, and records requests.

    Args:
        script: responses to play, in order (see `tether_testing.script`).
        host: interface to bind; loopback by default.
        port: 0 picks a free port.
        loop_script: replay the script from the start once exhausted (benchmarks).
    """

    model_path = "/responses"
    """The endpoint whose POSTs are model requests (`FakeChatServer`: ``/chat/completions``)."""

    def __init__(
        self,
        script: Iterable[ScriptedResponse] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        loop_script: bool = False,
        models: Iterable[str | dict[str, Any]] = (),
    ) -> None:
        self.models = list(models)
        """What `GET …/models` lists, as OpenAI-compatible servers answer it: an id, or a whole
        entry with a server's own fields (vLLM's `max_model_len`, llama.cpp's `meta`)."""
        self._script: deque[ScriptedResponse] = deque(script)
        self._all = list(self._script) if loop_script else []
        self._routed: list[tuple[Callable[[dict[str, Any]], bool], deque[ScriptedResponse]]] = []
        self._host, self._port = host, port
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._gates: dict[str, asyncio.Event] = {}
        self._reached: dict[str, asyncio.Event] = {}
        self._arrival = asyncio.Event()
        self.requests: list[RecordedRequest] = []
        self.served = 0

    @property
    def port(self) -> int:
        """The bound port (after `start`)."""
        if self._server is None:
            raise RuntimeError("the fake server is not started")
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    @property
    def base_url(self) -> str:
        """The provider base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self._host}:{self.port}/v1"

    def add(self, *responses: ScriptedResponse) -> None:
        """Append responses to the script."""
        self._script.extend(responses)

    def add_for(self, match: Callable[[dict[str, Any]], bool], *responses: ScriptedResponse) -> None:
        """Keep `responses` for the requests whose body `match`es, in order, ahead of the main
        script: concurrent requests (a parent thread and its sub-agents) then get their own answers
        whichever arrives first."""
        self._routed.append((match, deque(responses)))

    def discard_remaining(self) -> int:
        """Drop the responses not yet served (a test's spare replies); returns how many."""
        dropped = len(self._script)
        self._script.clear()
        return dropped

    @property
    def remaining(self) -> int:
        """Scripted responses not yet served."""
        return len(self._script)

    async def start(self) -> None:
        """Bind and start accepting connections."""
        self._server = await asyncio.start_server(self._on_connection, self._host, self._port)

    async def stop(self) -> None:
        """Stop accepting, cut every open connection and wait for the handlers to end."""
        if self._server is not None:
            self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def __aenter__(self) -> FakeResponsesServer:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    def release(self, name: str) -> None:
        """Let every stream paused at `gated(name)` (now or later) continue."""
        self._gate(self._gates, name).set()

    async def wait_for_gate(self, name: str, within_s: float = 5.0) -> None:
        """Wait until some stream has paused at `gated(name)`.

        Raises:
            TimeoutError: no stream reached the gate within `within_s` seconds.
        """
        async with asyncio.timeout(within_s):
            await self._gate(self._reached, name).wait()

    async def wait_for_request(self, n: int = 1, within_s: float = 5.0) -> RecordedRequest:
        """Wait until `n` model requests arrived; return the n-th.

        Raises:
            TimeoutError: fewer than `n` arrived within `within_s` seconds.
        """
        async with asyncio.timeout(within_s):
            while len(self.requests) < n:
                await self._arrival.wait()
        return self.requests[n - 1]

    @staticmethod
    def _gate(table: dict[str, asyncio.Event], name: str) -> asyncio.Event:
        return table.setdefault(name, asyncio.Event())

    def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # A plain callback, so that every connection task is ours to cancel in `stop`.
        task = asyncio.get_running_loop().create_task(self._serve(reader, writer))
        self._connections.add(task)
        task.add_done_callback(self._connections.discard)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._serve_one(reader, writer):
                pass
        except (_ClientGone, ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > _MAX_HEAD_BYTES:
            raise _ClientGone
        method, target, headers = _parse_head(head)
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        path, _, query = target.partition("?")
        if method == "POST" and path.endswith(self.model_path):
            request = RecordedRequest(path, headers, _json(raw), method, query, raw)
            await self._answer_model_request(writer, request)
        elif method == "POST" and path.startswith(_RELEASE_PREFIX):
            self.release(path.removeprefix(_RELEASE_PREFIX))
            await _write_json(writer, 200, {"released": path.removeprefix(_RELEASE_PREFIX)})
        elif method == "GET" and path == "/_fake/requests":
            recorded = [{"path": r.path, "headers": r.headers, "body": r.body} for r in self.requests]
            await _write_json(writer, 200, recorded)
        elif method == "GET" and path.endswith("/models"):
            listed = [
                {"object": "model", "owned_by": "fake", **(m if isinstance(m, dict) else {"id": m})}
                for m in self.models
            ]
            await _write_json(writer, 200, {"object": "list", "data": listed})
        else:
            await _write_json(writer, 404, {"error": {"message": f"no route for {method} {path}"}})
        return headers.get("connection", "").lower() != "close"

    async def _answer_model_request(self, writer: asyncio.StreamWriter, request: RecordedRequest) -> None:
        self.requests.append(request)
        self._arrival.set()
        self._arrival = asyncio.Event()
        response = self._next_response(request.body)
        if response is None:
            message = (
                f"fake responses server: script exhausted — request #{len(self.requests)} "
                f"has no scripted response ({self.served} were served)"
            )
            await _write_json(writer, 500, {"error": {"message": message, "type": "script_exhausted"}})
            return
        self.served += 1
        if response.get("kind") == "http_error":
            await _write_error(writer, response)
        else:
            await self._stream(writer, response, len(request.raw_body))

    def _next_response(self, body: dict[str, Any]) -> ScriptedResponse | None:
        for match, queue in self._routed:
            if queue and match(body):
                return queue.popleft()
        if not self._script and self._all:
            self._script.extend(self._all)
        return self._script.popleft() if self._script else None

    async def _stream(self, writer: asyncio.StreamWriter, response: ScriptedResponse, body_size: int) -> None:
        head = ["HTTP/1.1 200 OK", "content-type: text/event-stream", "cache-control: no-cache"]
        head.append("transfer-encoding: chunked")
        head.extend(f"{name}: {value}" for name, value in response.get("headers", {}).items())
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        pending = bytearray()
        for sequence, step in enumerate(response["steps"]):
            if "event" in step or "chunk" in step:
                pending += _encode_event(step, sequence, body_size)
                if len(pending) >= _FLUSH_BYTES:
                    await _flush(writer, pending)
                continue
            await _flush(writer, pending)
            await self._control(writer, step)
        await _flush(writer, pending)
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async def _control(self, writer: asyncio.StreamWriter, step: Step) -> None:
        if "delay_ms" in step:
            await asyncio.sleep(float(step["delay_ms"]) / 1000)
        elif "gate" in step:
            self._gate(self._reached, step["gate"]).set()
            await self._gate(self._gates, step["gate"]).wait()
        elif "raw" in step:
            raw = str(step["raw"]).encode()
            writer.write(b"%x\r\n%s\r\n" % (len(raw), raw))
            await writer.drain()
        elif step.get("disconnect"):
            writer.transport.abort()
            raise _ClientGone


def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    method, target, _version = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    return method, target, headers


def _json(raw: bytes) -> dict[str, Any]:
    try:
        parsed = orjson.loads(raw) if raw else {}
    except orjson.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _encode_event(step: Step, sequence: int, body_size: int) -> bytes:
    if "chunk" in step:  # a Chat Completions chunk: data only, no event name or sequence
        chunk = step["chunk"]
        if step.get("auto_usage") is not None:
            usage = _plausible_usage(step["auto_usage"], body_size)
            chunk = {**chunk, "usage": _as_chat_usage(usage)}
        return b"data: " + orjson.dumps(chunk) + b"\n\n"
    event = {**step["event"], "sequence_number": sequence}
    auto = step.get("auto_usage")
    if auto is not None:
        event["response"] = {**event["response"], "usage": _plausible_usage(auto, body_size)}
    name = str(event["type"]).encode()
    data: bytes = orjson.dumps(event)
    return b"event: " + name + b"\ndata: " + data + b"\n\n"


def _plausible_usage(auto: dict[str, int], body_size: int) -> dict[str, Any]:
    input_tokens = max(1, body_size // 4)
    output_tokens = int(auto.get("output_tokens", 0)) + int(auto.get("reasoning_tokens", 0))
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": int(auto.get("reasoning_tokens", 0))},
        "total_tokens": input_tokens + output_tokens,
    }


def _as_chat_usage(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "prompt_tokens": usage["input_tokens"],
        "completion_tokens": usage["output_tokens"],
        "total_tokens": usage["total_tokens"],
        "completion_tokens_details": {"reasoning_tokens": usage["output_tokens_details"]["reasoning_tokens"]},
    }


async def _flush(writer: asyncio.StreamWriter, pending: bytearray) -> None:
    if not pending:
        return
    writer.write(b"%x\r\n%s\r\n" % (len(pending), pending))
    pending.clear()
    await writer.drain()


async def _write_json(
    writer: asyncio.StreamWriter, status: int, body: Any, headers: dict[str, str] | None = None
) -> None:
    payload = orjson.dumps(body)
    head = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", "content-type: application/json"]
    head.append(f"content-length: {len(payload)}")
    head.extend(f"{name}: {value}" for name, value in (headers or {}).items())
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
    await writer.drain()


async def _write_error(writer: asyncio.StreamWriter, response: ScriptedResponse) -> None:
    headers = dict(response.get("headers", {}))
    if response.get("retry_after") is not None:
        headers["retry-after"] = str(response["retry_after"])
    await _write_json(writer, int(response["status"]), response.get("body", {}), headers)


async def _serve_forever(script: list[ScriptedResponse], host: str, port: int, loop_script: bool) -> None:
    async with FakeResponsesServer(script, host=host, port=port, loop_script=loop_script) as fake:
        sys.stdout.write(f"listening on {fake.base_url}\n")
        sys.stdout.flush()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    """Command line: serve a JSON script until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m tether_testing.fake_responses", description=__doc__)
    parser.add_argument("--script", required=True, type=Path, help="JSON file: a list of responses")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--loop", action="store_true", help="replay the script when it runs out")
    args = parser.parse_args(argv)
    try:
        script = load_script(args.script.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        parser.error(f"cannot load {args.script}: {exc}")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve_forever(script, args.host, args.port, args.loop))
    return 0


if __name__ == "__main__":
    sys.exit(main())
