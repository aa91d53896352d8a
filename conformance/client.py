"""A scripted JSON-RPC client: one connection to the server under test, with its message log.

Every message the server sends is logged, and checked against the reference schema; the
problems found are kept in `violations` (the runner charges them to the envelope requirements).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from conformance.schema import ReferenceSchema

WAIT_S = 20.0
Message = dict[str, Any]


class Channel(Protocol):
    """A byte channel carrying one JSON-RPC message per frame."""

    async def send(self, frame: bytes) -> None:
        """Send one frame (for line transports, without the newline)."""

    def frames(self) -> AsyncIterator[bytes]:
        """The frames the server sends, until it closes the channel."""

    async def close(self) -> None:
        """Close the client's side of the channel."""


class RpcError(Exception):
    """The server answered a request with an error."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = str(error.get("message"))


@dataclass
class Violation:
    """A server message that broke an envelope rule or the reference schema."""

    rule: str
    detail: str


@dataclass
class Client:
    """One client connection: send requests/notifications/raw frames, wait for what comes back."""

    channel: Channel
    schema: ReferenceSchema
    name: str = "main"
    messages: list[Message] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    garbage: list[bytes] = field(default_factory=list)
    closed: bool = False
    _sent_methods: dict[Any, str] = field(default_factory=dict)
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _reader: asyncio.Task[None] | None = None

    def start_reading(self) -> None:
        """Start logging what the server sends."""
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for frame in self.channel.frames():
                try:
                    message = json.loads(frame)
                except ValueError:
                    self.garbage.append(frame[:200])
                    self.violations.append(Violation("envelope.json-lines", f"not JSON: {frame[:120]!r}"))
                    continue
                self._accept(message)
        finally:
            self.closed = True
            self._arrived.set()

    def _accept(self, message: Any) -> None:
        if not isinstance(message, dict):
            self.violations.append(Violation("envelope.json-lines", f"not an object: {message!r}"[:200]))
            return
        self.messages.append(message)
        self._arrived.set()

    def validate_received(self, per_method: int = 200) -> None:
        """Check what was received against the envelope rules and the reference schema.

        Done after the case, not while reading, so that a slow validator never makes the client a
        slow consumer. At most `per_method` messages of each kind and method are schema-checked (a
        flood repeats one shape thousands of times).
        """
        seen: dict[tuple[str, str], int] = {}
        for message in self.messages:
            kind = "error" if "error" in message else "request" if "id" in message else "other"
            key = (kind, str(message.get("method") or self._sent_methods.get(_key(message.get("id")))))
            seen[key] = seen.get(key, 0) + 1
            if seen[key] <= per_method:
                self._validate(message)

    def _validate(self, message: Message) -> None:
        if "jsonrpc" in message:
            self.violations.append(Violation("envelope.no-jsonrpc-member", "server sent a `jsonrpc` member"))
        if "method" in message and "id" in message:
            problems = self.schema.server_request_errors(message)
        elif "method" in message:
            if not isinstance(message.get("emittedAtMs"), int):
                self.violations.append(
                    Violation("envelope.emitted-at-ms", f"{message['method']} has no integer emittedAtMs")
                )
            problems = self.schema.notification_errors(message)
        elif "error" in message:
            problems = self._error_problems(message)
        else:
            method = self._sent_methods.get(_key(message.get("id")))
            problems = [] if method is None else self.schema.response_errors(method, message.get("result"))
        self.violations.extend(Violation("envelope.schema-valid", p) for p in problems)

    def _error_problems(self, message: Message) -> list[str]:
        if message.get("id") is None:
            # An error about an unreadable frame has no id to echo; only its error object is checked.
            return self.schema.error_errors({**message, "id": 0})
        return self.schema.error_errors(message)

    # ---- sending ----------------------------------------------------------------------------

    async def send_raw(self, frame: bytes) -> None:
        """Send `frame` exactly as given (it may be malformed on purpose)."""
        await self.channel.send(frame)

    async def send(self, message: Message) -> None:
        """Send one JSON message."""
        if "method" in message and "id" in message:
            self._sent_methods[_key(message["id"])] = str(message["method"])
        await self.channel.send(json.dumps(message).encode())

    def expect_replies(self, ids: list[Any], method: str) -> None:
        """Validate the replies to requests sent raw (by `send_raw`) as results of `method`."""
        for rid in ids:
            self._sent_methods[_key(rid)] = method

    def next_id(self) -> int:
        """A fresh integer request id."""
        return int(next(self._ids))

    async def call(
        self, method: str, params: Any = None, *, request_id: Any = None, omit_params: bool = False
    ) -> Message:
        """Send a request and return its reply (result or error), waiting at most WAIT_S."""
        rid = self.next_id() if request_id is None else request_id
        message: Message = {"id": rid, "method": method}
        if not omit_params:
            message["params"] = {} if params is None else params
        mark = self.mark()
        await self.send(message)
        return await self.reply_to(rid, after=mark)

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request and return its result; an error reply raises RpcError."""
        reply = await self.call(method, params)
        if "error" in reply:
            raise RpcError(reply["error"])
        return reply.get("result")

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        message: Message = {"method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)

    async def respond(self, request_id: Any, result: Any) -> None:
        """Answer a server request."""
        await self.send({"id": request_id, "result": result})

    # ---- waiting ------------------------------------------------------------------------------

    def mark(self) -> int:
        """Position in the message log, for `since` and `after=`."""
        return len(self.messages)

    def since(self, mark: int) -> list[Message]:
        """The messages received after `mark`."""
        return self.messages[mark:]

    async def wait_for(
        self, predicate: Callable[[Message], bool], *, after: int = 0, within_s: float = WAIT_S
    ) -> Message:
        """The first message after `after` that satisfies `predicate`, waiting for it if need be."""
        index = after
        async with asyncio.timeout(within_s):
            while True:
                while index < len(self.messages):
                    if predicate(self.messages[index]):
                        return self.messages[index]
                    index += 1
                if self.closed:
                    raise ConnectionError(f"{self.name}: server closed the connection while we waited")
                self._arrived.clear()
                await self._arrived.wait()

    async def reply_to(self, request_id: Any, *, after: int = 0, within_s: float = WAIT_S) -> Message:
        """The response (result or error) carrying `request_id`."""
        return await self.wait_for(
            lambda m: "method" not in m and _key(m.get("id")) == _key(request_id),
            after=after,
            within_s=within_s,
        )

    async def notification(self, method: str, *, after: int = 0, within_s: float = WAIT_S) -> Message:
        """The first notification `method` after `after`."""
        return await self.wait_for(
            lambda m: m.get("method") == method and "id" not in m, after=after, within_s=within_s
        )

    async def server_request(self, method: str, *, after: int = 0, within_s: float = WAIT_S) -> Message:
        """The first server request `method` after `after`."""
        return await self.wait_for(
            lambda m: m.get("method") == method and "id" in m, after=after, within_s=within_s
        )

    async def quiet(self, seconds: float) -> list[Message]:
        """What arrives during `seconds` of listening (for "nothing is sent" checks)."""
        mark = self.mark()
        with contextlib.suppress(TimeoutError, ConnectionError):
            await self.wait_for(lambda m: False, after=mark, within_s=seconds)
        return self.since(mark)

    async def close(self) -> None:
        """Close our side and stop reading."""
        await self.channel.close()
        if self._reader is not None:
            try:
                async with asyncio.timeout(5):
                    await self._reader
            except TimeoutError:
                self._reader.cancel()


def _key(request_id: Any) -> str:
    """Ids compare by JSON value (so 1 and "1" stay distinct)."""
    return json.dumps(request_id)
