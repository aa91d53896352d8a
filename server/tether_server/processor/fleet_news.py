"""Broadcasts about the thread list, to every client of the fleet (docs/fleet.md).

On one daemon they go to its connections. On a fleet node they also go to every other node,
through the store's news channel (store/postgres_news.py), whose listener hands them to `heard`
here: the other node's clients get the same method and params as this node's.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

from tether_protocol.common import WireModel
from tether_protocol.spec import NotificationSpec, WireParams
from tether_server.processor.state import ServerState
from tether_server.processor.stored_turns import stored_turns
from tether_server.rpc.fleet_wide import FLEET_WIDE
from tether_server.rpc.outgoing import send_notification

P = TypeVar("P", bound=WireModel)
_publishing: set[asyncio.Task[None]] = set()


def broadcast(state: ServerState, spec: NotificationSpec[P], params: P) -> None:
    """To every connection, unsequenced (docs/architecture.md, "Notifications"), on every node."""
    assert spec.broadcast, spec.name
    send_notification(state.connections(), spec, params)
    ownership = state.threads.ownership
    news = ownership.news if ownership is not None else None
    if news is None or spec.name not in FLEET_WIDE:
        return
    wire = params.wire()
    thread = wire.get("thread")
    if isinstance(thread, dict) and thread.get("ephemeral"):
        return  # it lives in this node's memory only: no other node can open it

    def shrink() -> list[str]:
        # What can be long (a fork's turns, a name) the receiver reads back from the database.
        if isinstance(thread, dict) and thread.get("turns"):
            thread["turns"] = []
            return ["turns"]
        if "threadName" in wire:
            wire["threadName"] = None
            return ["threadName"]
        return []

    task = asyncio.get_running_loop().create_task(news.publish(spec.name, wire, shrink))
    _publishing.add(task)
    task.add_done_callback(_publishing.discard)


async def heard(state: ServerState, method: str, params: dict[str, Any], omitted: list[str]) -> None:
    """Another node's news: to this node's clients as its own clients got it."""
    spec = FLEET_WIDE.get(method)
    if spec is None:
        return
    if "turns" in omitted:
        thread = params["thread"]
        thread["turns"] = await stored_turns(state.store, thread["id"])
    if "threadName" in omitted:
        record = await state.store.get_thread(params["threadId"])
        params["threadName"] = record.name if record is not None else None
    send_notification(state.connections(), spec, WireParams(params))
