"""Broadcast notifications reach a connection that never subscribed; the thread's stream does not.

Which notifications are broadcast is the spec's `broadcast`; which of those carry `seq` is the path
they take (docs/architecture.md, "Notifications"): `thread/status/changed` and `thread/closed` are
thread events, numbered with the thread's stream; the lifecycle broadcasts go out unsequenced.
"""

from __future__ import annotations

from pathlib import Path

from tests.unit.processor.conftest import Connect

from tether_protocol.methods import SERVER_NOTIFICATIONS
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_connection_that_never_subscribed_hears_the_broadcasts_and_nothing_else(
    connect: Connect, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("done", deltas=3))
    owner, bystander = await connect(), await connect()
    started = await owner.request("thread/start", {"cwd": str(workdir)})
    thread_id = started["thread"]["id"]
    mark = owner.mark()
    await owner.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    await owner.notification("turn/completed", after=mark)
    await owner.request("thread/name/set", {"threadId": thread_id, "name": "renamed"})
    await owner.request("thread/archive", {"threadId": thread_id})
    # Every thread event was routed to the bystander's outbox before the archive's response.
    await bystander.notification("thread/archived")

    heard = [m for m in bystander.messages if "method" in m and "id" not in m]
    methods = {m["method"] for m in heard}
    assert methods <= {name for name, spec in SERVER_NOTIFICATIONS.items() if spec.broadcast}
    assert {"thread/started", "thread/status/changed", "thread/name/updated", "thread/archived"} <= methods
    owner_heard = {m["method"] for m in owner.messages if "method" in m and "id" not in m}
    assert {"turn/started", "item/agentMessage/delta", "turn/completed"} <= owner_heard

    sequenced = {m["method"] for m in heard if "seq" in m}
    assert sequenced == {"thread/status/changed"}
    statuses = [m for m in heard if m["method"] == "thread/status/changed"]
    assert all(m["params"]["threadId"] == thread_id for m in statuses)
    assert [m["seq"] for m in statuses] == sorted(m["seq"] for m in statuses)
