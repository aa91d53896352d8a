"""A minimal OTLP/HTTP collector on loopback: keeps every export request, decoded by the OTLP protobufs."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


@dataclass
class OtlpCollector:
    """Accepts `POST /v1/traces` and `POST /v1/logs`; answers 200 with an empty body."""

    bodies: dict[str, list[bytes]] = field(default_factory=dict)
    _server: asyncio.Server | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aenter__(self) -> OtlpCollector:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1]
                headers = {
                    k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])
                }
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                self.bodies.setdefault(path, []).append(body)
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n"
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def spans(self) -> list[Any]:
        """Every span received, across all export requests."""
        found = []
        for body in self.bodies.get("/v1/traces", []):
            request = ExportTraceServiceRequest.FromString(body)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    found.extend(scope.spans)
        return found

    def resources(self) -> list[dict[str, str]]:
        return [
            {a.key: a.value.string_value for a in resource.resource.attributes}
            for body in self.bodies.get("/v1/traces", [])
            for resource in ExportTraceServiceRequest.FromString(body).resource_spans
        ]

    def log_records(self) -> list[Any]:
        found = []
        for body in self.bodies.get("/v1/logs", []):
            for resource in ExportLogsServiceRequest.FromString(body).resource_logs:
                for scope in resource.scope_logs:
                    found.extend(scope.log_records)
        return found
