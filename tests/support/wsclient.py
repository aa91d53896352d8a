"""Drive a real `tether app-server` over its sockets: the control socket or WebSocket over TCP.

`SocketServer` runs the daemon with `--listen` URLs and learns the addresses from its startup
banner; `WsClient` is one connection with the same API as the stdio `AppServer`, every message
checked against the reference schema.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect, unix_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.support.rpcclient import WAIT_S, RpcClient
from tether_server.transports import unix
from tether_server.transports.ws_auth import GENERATED_TOKEN_FILE

CLIENT_MAX_BYTES = 64 * 1024 * 1024
# Start-up (imports, store migrations, the sandbox probe) is slow on a loaded CI machine.
STARTUP_S = 60.0


class SocketServer:
    """A `tether app-server` process serving sockets; its stderr is kept in `log`."""

    def __init__(self, proc: asyncio.subprocess.Process, home: Path) -> None:
        self.proc = proc
        self.home = home
        self.lines: list[str] = []
        self.ws_url = ""
        self.unix_path: Path | None = None
        self._reader: asyncio.Task[None] | None = None
        self._line = asyncio.Event()

    @classmethod
    async def start(
        cls,
        home: Path,
        args: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        ready: bool = True,
        preexec: Callable[[], None] | None = None,
    ) -> SocketServer:
        """Spawn the server; with `ready`, return once every socket listener has printed its banner.

        `preexec` runs in the child before the server starts (e.g. to set a resource limit).
        """
        home.mkdir(parents=True, exist_ok=True)
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tether_server",
            "app-server",
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            cwd=str(home),
            env={**os.environ, "TETHER_HOME": str(home), **(env or {})},
            preexec_fn=preexec,
        )
        server = cls(proc, home)
        if ready:
            wanted = sum(1 for a in args if a.startswith(("unix://", "ws://", "wss://")))
            await server._read_banners(wanted)
        server._reader = asyncio.create_task(server._drain_stderr())
        return server

    async def _read_banners(self, wanted: int) -> None:
        assert self.proc.stderr is not None
        async with asyncio.timeout(STARTUP_S):
            while wanted:
                line = (await self.proc.stderr.readline()).decode()
                if not line:
                    raise AssertionError("server exited before listening:\n" + "".join(self.lines))
                self.lines.append(line)
                if line.startswith("listening on: unix://"):
                    self.unix_path = Path(line.removeprefix("listening on: unix://").strip())
                    wanted -= 1
                elif line.startswith("listening on: ws"):
                    self.ws_url = line.removeprefix("listening on: ").strip()
                    wanted -= 1

    async def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        async for line in self.proc.stderr:
            self.lines.append(line.decode(errors="replace"))
            self._line.set()
        self._line.set()

    async def logged(self, text: str, within_s: float = WAIT_S) -> None:
        """Wait until the server has written a stderr line containing `text`."""
        async with asyncio.timeout(within_s):
            seen = 0
            while True:
                if any(text in line for line in self.lines[seen:]):
                    return
                seen = len(self.lines)
                if self._reader is not None and self._reader.done():
                    raise AssertionError(f"server exited without logging {text!r}")
                self._line.clear()
                await self._line.wait()

    def stderr(self) -> str:
        return "".join(self.lines)

    def signal(self, sig: signal.Signals = signal.SIGTERM) -> None:
        if self.proc.returncode is None:
            self.proc.send_signal(sig)

    async def wait(self, within_s: float = STARTUP_S) -> int:
        async with asyncio.timeout(within_s):
            code = await self.proc.wait()
            if self._reader is not None:
                await self._reader
        return code

    async def stop(self) -> int:
        """SIGTERM and wait for the exit status (killed if it does not exit in time)."""
        self.signal()
        try:
            return await self.wait()
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
            raise

    def token(self) -> str | None:
        """The token the server generated in its home (None when it runs with other auth)."""
        path = self.home / GENERATED_TOKEN_FILE
        return path.read_text().strip() if path.exists() else None

    async def connect_ws(self, **kw: Any) -> WsClient:
        """Connect as the project's clients do: with the generated token unless told otherwise."""
        if "token" not in kw and "Authorization" not in kw.get("headers", {}):
            kw["token"] = self.token()
        return await WsClient.connect_ws(self.ws_url, **kw)

    async def connect_unix(self) -> WsClient:
        assert self.unix_path is not None
        return await WsClient.connect_unix(self.unix_path)


class WsClient(RpcClient):
    """One WebSocket connection; one JSON-RPC message a text frame."""

    def __init__(self, ws: ClientConnection) -> None:
        super().__init__()
        self.ws = ws
        self.non_json: list[str] = []
        self._reader: asyncio.Task[None] | None = None
        self.resume_reading()

    @classmethod
    async def connect_ws(
        cls, url: str, *, token: str | None = None, headers: dict[str, str] | None = None
    ) -> WsClient:
        extra = dict(headers or {})
        if token is not None:
            extra["Authorization"] = f"Bearer {token}"
        ws = await connect(
            url, additional_headers=extra, max_size=CLIENT_MAX_BYTES, compression=None, open_timeout=STARTUP_S
        )
        return cls(ws)

    @classmethod
    async def connect_unix(cls, path: Path) -> WsClient:
        sock = unix.connect(path)
        sock.setblocking(False)
        ws = await unix_connect(
            sock=sock,
            uri="ws://localhost/rpc",
            max_size=CLIENT_MAX_BYTES,
            compression=None,
            open_timeout=STARTUP_S,
        )
        return cls(ws)

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                text = frame if isinstance(frame, str) else frame.decode(errors="replace")
                try:
                    message = json.loads(text)
                except ValueError:
                    self.non_json.append(text)
                    continue
                self._accept(message)
        except ConnectionClosed:
            pass
        finally:
            self._wake()

    def pause_reading(self) -> None:
        """Stop reading: the socket fills up, as with a client that hangs."""
        if self._reader is not None:
            self._reader.cancel()
            self._reader = None

    def resume_reading(self) -> None:
        if self._reader is None:
            self._reader = asyncio.create_task(self._read())

    def ended(self) -> bool:
        return self._reader is not None and self._reader.done()

    async def closed(self, within_s: float = WAIT_S) -> None:
        """Wait until the server has closed the connection."""
        async with asyncio.timeout(within_s):
            await self.ws.wait_closed()
            if self._reader is not None:
                await self._reader

    async def send_raw(self, data: bytes) -> None:
        await self.ws.send(data.rstrip(b"\n").decode())

    async def close(self, *, check: bool = True) -> None:
        await self.ws.close()
        if self._reader is not None:
            await self._reader
        if check:
            assert not self.non_json, f"non-JSON frames: {self.non_json[:3]}"
            self.check()


async def http_status(url: str, **kw: Any) -> tuple[int, str, dict[str, str]]:
    """Attempt an upgrade at `url`; the HTTP status, body and headers of a refusal (101 if accepted)."""
    try:
        client = await WsClient.connect_ws(url, **kw)
    except InvalidStatus as exc:
        response = exc.response
        return response.status_code, response.body.decode(), dict(response.headers.raw_items())
    await client.close()
    return 101, "", {}
