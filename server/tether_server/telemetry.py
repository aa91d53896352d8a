"""OpenTelemetry traces and log export, when `[otel]` asks for them; nothing at all otherwise.

A span per request (named by its method), per turn, per model call and per tool call. The SDK
(`pip install 'tether[otel]'`) is imported only by `configure`; before it, `span` is a no-op
that costs one global read. Model-call spans are not made current: tool calls started during a
model stream then belong to the turn, next to the model call, not under it.

Log export sends every line the daemon logs (after `TETHER_LOG` filtering) as an OTel log
record carrying the current span's trace id.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from structlog.typing import EventDict, WrappedLogger

SERVICE_NAME = "tether-app-server"
_SEVERITY = {"debug": 5, "info": 9, "warning": 13, "error": 17, "critical": 21}


@dataclass(frozen=True)
class Exporter:
    """Where to send: `kind` is `otlp-http` or `otlp-grpc`; `protocol` (`binary`) for otlp-http."""

    kind: str
    endpoint: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    protocol: str = "binary"


@dataclass
class _State:
    tracer: Any = None
    trace_provider: Any = None
    log_provider: Any = None
    otel_logger: Any = None
    environment: str = "dev"


_state = _State()


def configure(
    *,
    environment: str,
    version: str,
    traces: Exporter | None = None,
    logs: Exporter | None = None,
    span_exporter: Any = None,
) -> None:
    """Start exporting. `span_exporter` (an SDK SpanExporter) replaces `traces`' exporter (tests).

    Raises:
        ImportError: the OpenTelemetry SDK (or the exporter asked for) is not installed.
    """
    from opentelemetry.sdk.resources import Resource

    resource = Resource.create(
        {"service.name": SERVICE_NAME, "service.version": version, "deployment.environment": environment}
    )
    _state.environment = environment
    if traces is not None or span_exporter is not None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        provider = TracerProvider(resource=resource)
        exporter = span_exporter if span_exporter is not None else _span_exporter(traces)
        provider.add_span_processor(BatchSpanProcessor(exporter))
        _state.trace_provider = provider
        _state.tracer = provider.get_tracer("tether_server", version)
    if logs is not None:
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        log_provider = LoggerProvider(resource=resource)
        log_provider.add_log_record_processor(BatchLogRecordProcessor(_log_exporter(logs)))
        _state.log_provider = log_provider
        _state.otel_logger = log_provider.get_logger("tether_server", version)


def _span_exporter(spec: Exporter | None) -> Any:
    assert spec is not None
    if spec.kind == "otlp-grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # type: ignore[import-not-found]
            OTLPSpanExporter as Grpc,
        )

        return Grpc(endpoint=spec.endpoint, headers=dict(spec.headers) or None)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(endpoint=spec.endpoint, headers=dict(spec.headers) or None)


def _log_exporter(spec: Exporter) -> Any:
    if spec.kind == "otlp-grpc":
        from opentelemetry.exporter.otlp.proto.grpc._log_exporter import (  # type: ignore[import-not-found]
            OTLPLogExporter as Grpc,
        )

        return Grpc(endpoint=spec.endpoint, headers=dict(spec.headers) or None)
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

    return OTLPLogExporter(endpoint=spec.endpoint, headers=dict(spec.headers) or None)


def enabled() -> bool:
    return _state.tracer is not None


class Span:
    """A started span, or nothing (telemetry off); `set` adds attributes, `fail` marks an error."""

    def __init__(self, span: Any = None) -> None:
        self._span = span

    def set(self, attributes: Mapping[str, Any]) -> None:
        if self._span is not None:
            for key, value in attributes.items():
                if value is not None:
                    self._span.set_attribute(key, value)

    def fail(self, description: str) -> None:
        if self._span is not None:
            from opentelemetry.trace import Status, StatusCode

            self._span.set_status(Status(StatusCode.ERROR, description))


_NOTHING = Span()


@contextlib.contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None, *, current: bool = True) -> Iterator[Span]:
    """A span around the block; with `current`, spans started inside it (tasks too) are its children."""
    tracer = _state.tracer
    if tracer is None:
        yield _NOTHING
        return
    attrs = {k: v for k, v in (attributes or {}).items() if v is not None}
    if current:
        with tracer.start_as_current_span(name, attributes=attrs) as live:
            yield Span(live)
        return
    live = tracer.start_span(name, attributes=attrs)
    try:
        yield Span(live)
    except BaseException as exc:
        live.record_exception(exc)
        raise
    finally:
        live.end()


def record(name: str, attributes: Mapping[str, Any], start_ns: int, end_ns: int) -> None:
    """A span for work already done before telemetry was running (the stdio front's `initialize`)."""
    tracer = _state.tracer
    if tracer is None:
        return
    attrs = {k: v for k, v in attributes.items() if v is not None}
    tracer.start_span(name, attributes=attrs, start_time=start_ns).end(end_time=end_ns)


def export_log(_logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
    """structlog processor: a copy of each line to the OTel log exporter (no-op when not configured)."""
    otel_logger = _state.otel_logger
    if otel_logger is None:
        return event
    from opentelemetry._logs import LogRecord

    level = str(event.get("level", method))
    attributes = {
        k: v if isinstance(v, str | int | float | bool) else str(v)
        for k, v in event.items()
        if k not in ("event", "timestamp", "level")
    }
    attributes["deployment.environment"] = _state.environment
    otel_logger.emit(
        LogRecord(
            timestamp=time.time_ns(),
            severity_text=level.upper(),
            severity_number=_severity(level),
            body=str(event.get("event", "")),
            attributes=attributes,
        )
    )
    return event


def _severity(level: str) -> Any:
    from opentelemetry._logs import SeverityNumber

    return SeverityNumber(_SEVERITY.get(level, 9))


def shutdown() -> None:
    """Flush and stop the exporters (at daemon exit)."""
    for provider in (_state.trace_provider, _state.log_provider):
        if provider is not None:
            provider.shutdown()
    _state.tracer = _state.trace_provider = _state.log_provider = _state.otel_logger = None
