"""`tether app-server daemon start|stop|status` and `tether app-server proxy`.

The managed daemon is `tether app-server --listen unix:// --pid-file …` in its own session. It holds
an exclusive lock on its pid file while it lives, so the lock (not a pid that may be reused) says
whether it runs.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from websockets.asyncio.client import ClientConnection, unix_connect
from websockets.exceptions import ConnectionClosed

from tether_server.config import open_private
from tether_server.serve_options import PID_FILE
from tether_server.transports import unix
from tether_server.transports.limits import MAX_MESSAGE_BYTES
from tether_server.transports.stdio import StdioStream
from tether_server.transports.ws_auth import GENERATED_TOKEN_FILE

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 120.0
_POLL_S = 0.05
LOG_FILE = "app-server.log"
STARTUP_LOCK = "app-server-startup.lock"


def pid_file(home: Path) -> Path:
    return home / unix.CONTROL_DIR / PID_FILE


def running_pid(path: Path) -> int | None:
    """The pid of the daemon holding `path`'s lock, or None when no daemon runs."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        return int(text) if text.isdigit() else -1
    os.close(fd)
    return None


def manage(action: str, home: Path, server_args: list[str]) -> int:
    """Run one `daemon` action; returns the exit status (status: 0 running, 3 not running).

    Args:
        action: `start`, `stop` or `status`.
        home: the Tether home the daemon serves.
        server_args: `tether app-server` flags for a daemon that `start` launches; the control
            socket listener is added when missing.
    """
    path = pid_file(home)
    if action == "start":
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Two concurrent `start`s: the second waits here, then finds the first one's daemon.
        with os.fdopen(open_private(path.parent / STARTUP_LOCK), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return _start(home, path, server_args)
    if action == "stop":
        return _stop(path)
    pid = running_pid(path)
    if pid is None:
        _say("tether app-server daemon is not running")
        return 3
    _say(f"tether app-server daemon is running (pid {pid}); control socket {unix.default_socket_path(home)}")
    return 0


def _start(home: Path, path: Path, server_args: list[str]) -> int:
    pid = running_pid(path)
    if pid is not None:
        _say(f"tether app-server daemon is already running (pid {pid})")
        return 0
    socket_path = unix.default_socket_path(home)
    argv = [sys.executable, "-m", "tether_server", "app-server", *server_args, "--pid-file", str(path)]
    if "unix://" not in server_args:
        argv += ["--listen", "unix://"]
    socket_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    log_path = socket_path.parent / LOG_FILE
    with os.fdopen(open_private(log_path), "ab") as log_file:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            start_new_session=True,
            env={**os.environ, "TETHER_HOME": str(home)},
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if child.poll() is not None:
            _say(f"tether app-server daemon failed to start (exit {child.returncode}); see {log_path}")
            return 1
        if running_pid(path) == child.pid and unix.is_live(socket_path):
            _say(f"tether app-server daemon started (pid {child.pid}); control socket {socket_path}")
            tcp = any(arg.startswith(("ws://", "wss://")) for arg in server_args)
            if tcp and "--ws-auth" not in server_args:
                _say(f"websocket clients authenticate with the bearer token in {home / GENERATED_TOKEN_FILE}")
            return 0
        time.sleep(_POLL_S)
    _say("tether app-server daemon did not become ready in time")
    return 1


def _stop(path: Path) -> int:
    pid = running_pid(path)
    if pid is None or pid <= 0:
        _say("tether app-server daemon is not running")
        return 0
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        if running_pid(path) is None:
            _say(f"tether app-server daemon stopped (pid {pid})")
            return 0
        time.sleep(_POLL_S)
    _say(f"tether app-server daemon (pid {pid}) is still draining; run `stop` again to force it")
    return 1


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")


async def proxy(socket_path: Path) -> int:
    """Relay JSONL on stdio to the control socket, one line a WebSocket text frame, both ways.

    At EOF on stdin the requests already sent are still answered, as on a stdio server.
    """
    try:
        sock = unix.connect(socket_path)
    except OSError as exc:
        _say(f"tether: cannot connect to {socket_path}: {exc.strerror}")
        return 1
    sock.setblocking(False)
    stdio = StdioStream()
    async with unix_connect(
        sock=sock, uri="ws://localhost/rpc", max_size=MAX_MESSAGE_BYTES, compression=None
    ) as ws:
        relay = _Relay(stdio, ws)
        upstream = asyncio.create_task(relay.to_socket())
        downstream = asyncio.create_task(relay.to_stdio())
        await asyncio.wait({upstream, downstream}, return_when=asyncio.FIRST_COMPLETED)
        upstream.cancel()
        await ws.close()
        await downstream
    await stdio.close()
    return 0


class _Relay:
    """Moves frames both ways and tracks the client's unanswered requests."""

    def __init__(self, stdio: StdioStream, ws: ClientConnection) -> None:
        self.stdio = stdio
        self.ws = ws
        self.unanswered: set[object] = set()
        self.all_answered = asyncio.Event()

    async def to_socket(self) -> None:
        try:
            async for frame in self.stdio.frames():
                request_id = _request_id(frame)
                if request_id is not None:
                    self.unanswered.add(request_id)
                    self.all_answered.clear()
                await self.ws.send(frame, text=True)
        except ConnectionClosed:
            return
        if self.unanswered:
            await self.all_answered.wait()

    async def to_stdio(self) -> None:
        try:
            async for message in self.ws:
                frame = message.encode() if isinstance(message, str) else message
                self._answered(frame)
                await self.stdio.send(frame)
        except (ConnectionClosed, ConnectionError):
            return

    def _answered(self, frame: bytes) -> None:
        if not self.unanswered:
            return
        try:
            message = json.loads(frame)
        except ValueError:
            return
        if isinstance(message, dict) and "method" not in message:
            self.unanswered.discard(_hashable(message.get("id")))
            if not self.unanswered:
                self.all_answered.set()


def _request_id(frame: bytes) -> object:
    try:
        message = json.loads(frame)
    except ValueError:
        return None
    if isinstance(message, dict) and "method" in message and "id" in message:
        return _hashable(message["id"])
    return None


def _hashable(value: object) -> object:
    return value if isinstance(value, str | int) else repr(value)
