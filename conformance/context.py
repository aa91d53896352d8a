"""What a case script works with: its server, its clients, the fake model, and its checks."""

from __future__ import annotations

import json
import socket
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.client import Client, Message
from conformance.manifest import IMPLICIT, Case
from conformance.schema import ReferenceSchema
from conformance.server import ServerProcess, ServerTemplate
from conformance.transports import connect_socket
from tether_testing.fake_responses import FakeResponsesServer

CLIENT_INFO = {"name": "conformance", "title": "Conformance Suite", "version": "0.1.0"}


class CaseBug(Exception):
    """The case script itself is wrong (e.g. it checks a requirement it does not cite)."""


@dataclass
class Check:
    """One observation about a requirement."""

    ok: bool
    detail: str


@dataclass
class CaseContext:
    """Runs one case: owns its scratch folder, server process(es), clients and fake model."""

    case: Case
    template: ServerTemplate
    schema: ReferenceSchema
    scratch: Path
    model: FakeResponsesServer
    options: dict[str, Any] = field(default_factory=dict)
    checks: dict[str, list[Check]] = field(default_factory=dict)
    clients: list[Client] = field(default_factory=list)
    servers: list[ServerProcess] = field(default_factory=list)
    _listen: str = ""

    @property
    def home(self) -> Path:
        """The scratch home of the server under test ({home})."""
        return self.scratch / "home"

    @property
    def workdir(self) -> Path:
        """A project folder for threads to work in ({workdir})."""
        return self.scratch / "project"

    @property
    def transport(self) -> str:
        """The transport under test."""
        return self.template.transport

    # ---- checks -----------------------------------------------------------------------------

    def check(self, requirement: str, ok: bool, detail: str = "") -> bool:
        """Record whether `requirement` held; `detail` says what was seen when it did not."""
        if requirement not in self.case.requires and requirement not in IMPLICIT:
            raise CaseBug(f"case {self.case.id} checks {requirement} without citing it")
        self.checks.setdefault(requirement, []).append(Check(ok, "" if ok else detail))
        return ok

    def expect(self, requirement: str, actual: Any, expected: Any, what: str = "") -> bool:
        """Check `actual == expected`."""
        return self.check(requirement, actual == expected, f"{what}: expected {expected!r}, got {actual!r}")

    # ---- servers and clients ----------------------------------------------------------------

    async def start_server(self) -> ServerProcess:
        """Start (another) server process on this case's home."""
        for path in (self.home, self.workdir):
            path.mkdir(parents=True, exist_ok=True)
        self._listen = self._listen or _listen_url(self.transport, self.scratch)
        values = {
            "home": str(self.home),
            "model_base_url": self.model.base_url,
            "listen": self._listen,
            "workdir": str(self.workdir),
        }
        server = await ServerProcess.start(self.template, values, cwd=self.workdir, log_dir=self.scratch)
        self.servers.append(server)
        return server

    async def connect(self, name: str = "main") -> Client:
        """A new client connection. On stdio every connection is a new server process."""
        if self.transport == "stdio":
            channel = (await self.start_server()).stdio()
        else:
            if not self.servers or self.servers[-1].proc.returncode is not None:
                await self.start_server()
            channel = await connect_socket(self._listen, self.servers[-1])
        client = Client(channel, self.schema, name=name)
        client.start_reading()
        self.clients.append(client)
        return client

    async def stop_servers(self) -> None:
        """Close every client and stop every server (a restart keeps the home)."""
        for client in self.clients:
            await client.close()
        for server in self.servers:
            await server.stop()
        _remove_socket(self._listen)

    # ---- common client steps ----------------------------------------------------------------

    async def initialize(
        self, client: Client, *, name: str = "conformance", experimental: bool = True
    ) -> Any:
        """The handshake: `initialize` then `initialized`; returns the initialize result."""
        info = {**CLIENT_INFO, "name": name}
        result = await client.request(
            "initialize", {"clientInfo": info, "capabilities": {"experimentalApi": experimental}}
        )
        await client.notify("initialized")
        return result

    async def ready_client(self, name: str = "main") -> Client:
        """A connected, initialized client."""
        client = await self.connect(name)
        await self.initialize(client)
        return client

    async def start_thread(self, client: Client, **params: Any) -> str:
        """`thread/start` in the case's project folder; waits for `thread/started`; returns the id."""
        mark = client.mark()
        result = await client.request("thread/start", {"cwd": str(self.workdir), **params})
        thread_id = str(result["thread"]["id"])
        await client.wait_for(
            lambda m: m.get("method") == "thread/started" and m["params"]["thread"]["id"] == thread_id,
            after=mark,
        )
        return thread_id

    async def run_turn(self, client: Client, thread_id: str, text: str, **params: Any) -> tuple[int, Message]:
        """`turn/start` with one text input; returns (mark before it, the turn/completed message)."""
        mark = client.mark()
        await client.request("turn/start", {"threadId": thread_id, "input": [_text(text)], **params})
        done = await client.notification("turn/completed", after=mark)
        return mark, done

    # ---- teardown ---------------------------------------------------------------------------

    def write_transcripts(self) -> None:
        """Write each client's received messages to `<scratch>/<client>.received.jsonl`."""
        for client in self.clients:
            lines = (json.dumps(m) for m in client.messages)
            (self.scratch / f"{client.name}.received.jsonl").write_text("\n".join(lines) + "\n")

    def charge_envelope_violations(self) -> None:
        """Turn what the clients' validators saw into checks of the implicit requirements."""
        for client in self.clients:
            client.validate_received()
        for rule in IMPLICIT:
            if rule == "envelope.json-lines" and self.transport != "stdio":
                continue
            problems = [
                f"[{c.name}] {v.detail}" for c in self.clients for v in c.violations if v.rule == rule
            ]
            if self.clients:
                self.check(rule, not problems, "; ".join(problems[:4]))


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text, "text_elements": []}


def text_input(text: str) -> list[dict[str, Any]]:
    """A UserInput list holding one text input."""
    return [_text(text)]


def _listen_url(transport: str, scratch: Path) -> str:
    if transport == "unix":
        # sun_path holds ~107 bytes: a deep scratch folder would not fit, so the socket lives in /tmp.
        short = Path(tempfile.gettempdir()) / f"conformance-{uuid.uuid4().hex[:12]}.sock"
        return f"unix://{short}"
    if transport == "ws":
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        return f"ws://127.0.0.1:{port}"
    return "stdio://"


def _remove_socket(listen: str) -> None:
    if listen.startswith("unix://"):
        Path(listen.removeprefix("unix://")).unlink(missing_ok=True)
