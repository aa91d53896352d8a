"""A notification goes out only with params of its own spec's model; bad ones send nothing."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tether_protocol import server_methods as sm
from tether_protocol.spec import WireParams
from tether_protocol.v2 import notifications as n
from tether_server.rpc.connection import Connection
from tether_server.rpc.outgoing import send_notification
from tether_server.transports.memory import memory_pair


async def _frames_after(conn: Connection, peer: Any, send: Any) -> list[dict[str, Any]]:
    """What `peer` receives when `send()` runs on an initialized connection (then closed)."""
    writer = asyncio.create_task(conn.write_loop())
    try:
        send()
    finally:
        conn.shutdown("done")
        await writer
        peer.finish_sending()
    return [json.loads(frame) async for frame in peer.frames()]


def _connection() -> tuple[Connection, Any]:
    server_end, client_end = memory_pair()
    conn = Connection(server_end)
    conn.initialized = True
    return conn, client_end


async def test_params_of_another_notifications_model_are_refused_and_nothing_is_sent() -> None:
    conn, peer = _connection()
    # `Any` stands for a caller mypy cannot see through; mypy refuses the same call when typed
    # (tests/unit/rpc/notification_typing.py).
    wrong: Any = n.ThreadDeletedNotification(thread_id="t-1")
    bare: Any = {"threadId": "t-1"}

    def send() -> None:
        with pytest.raises(TypeError, match=r"thread/archived takes ThreadArchivedNotification"):
            send_notification([conn], sm.THREAD_ARCHIVED, wrong)
        with pytest.raises(TypeError, match=r"thread/archived takes ThreadArchivedNotification"):
            send_notification([conn], sm.THREAD_ARCHIVED, bare)

    assert await _frames_after(conn, peer, send) == []


async def test_a_notification_goes_out_as_its_spec_names_it_with_its_models_wire_form() -> None:
    conn, peer = _connection()
    note = n.ThreadArchivedNotification(thread_id="t-1")
    shaped: WireParams[n.ThreadClosedNotification] = WireParams({"threadId": "t-2"})

    def send() -> None:
        send_notification([conn], sm.THREAD_ARCHIVED, note)
        send_notification([conn], sm.THREAD_CLOSED, shaped)

    frames = await _frames_after(conn, peer, send)
    assert [(f["method"], f["params"]) for f in frames] == [
        ("thread/archived", {"threadId": "t-1"}),
        ("thread/closed", {"threadId": "t-2"}),
    ]


async def test_a_config_warning_leaves_out_the_fields_it_was_not_given() -> None:
    conn, peer = _connection()
    note = n.ConfigWarningNotification(summary="bad key", details=None)

    frames = await _frames_after(conn, peer, lambda: send_notification([conn], sm.CONFIG_WARNING, note))
    assert frames[0]["params"] == {"summary": "bad key", "details": None}
