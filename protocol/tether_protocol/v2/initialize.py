"""`initialize`: the handshake."""

from __future__ import annotations

from tether_protocol.common import JsonValue, WireModel


class ClientInfo(WireModel):
    name: str
    title: str | None = None
    version: str


class InitializeCapabilities(WireModel):
    experimental_api: bool = False
    opt_out_notification_methods: list[str] | None = None
    request_attestation: bool = False
    extensions: dict[str, JsonValue] | None = None


class InitializeParams(WireModel):
    client_info: ClientInfo
    capabilities: InitializeCapabilities | None = None


class InitializeResponse(WireModel):
    user_agent: str
    codex_home: str
    platform_family: str
    platform_os: str
