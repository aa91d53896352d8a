"""The client's JSON-RPC behaviour, against an in-memory peer the test plays."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.unit.clients.fake_peer import PeerTransport

from tether_client import DEFERRED, Client, Deferred, RpcError, ServerRequest, TransportClosed, accept_all
from tether_protocol.v2.approvals import CommandExecutionRequestApprovalParams
from tether_protocol.v2.thread_lifecycle import ThreadStartParams

APPROVAL = {
    "threadId": "t1",
    "turnId": "u1",
    "itemId": "call_1",
    "startedAtMs": 1,
    "command": "rm -rf build",
}


async def test_a_request_returns_the_method_tables_result_model_and_sends_only_set_fields() -> None:
    peer = PeerTransport()
    client = Client(peer)
    call = asyncio.create_task(client.request("thread/start", ThreadStartParams(cwd="/repo")))
    sent = await peer.next_sent()
    assert sent == {"id": sent["id"], "method": "thread/start", "params": {"cwd": "/repo"}}
    peer.push({"id": sent["id"], "result": {"thread": {"id": "t1"}}})
    with pytest.raises(Exception, match="validation"):
        await call  # an incomplete result is refused, not silently accepted
    await client.close()


async def test_an_error_answer_raises_rpc_error_with_code_and_message() -> None:
    peer = PeerTransport()
    client = Client(peer)
    call = asyncio.create_task(client.request_raw("thread/read", {"threadId": "nope"}))
    sent = await peer.next_sent()
    peer.push({"id": sent["id"], "error": {"code": -32600, "message": "thread not found: nope"}})
    with pytest.raises(RpcError) as caught:
        await call
    assert (caught.value.code, caught.value.message) == (-32600, "thread not found: nope")
    await client.close()


async def test_a_pending_request_fails_when_the_server_goes_away() -> None:
    peer = PeerTransport()
    client = Client(peer)
    call = asyncio.create_task(client.request_raw("thread/list", {}))
    await peer.next_sent()
    peer.hang_up()
    with pytest.raises(TransportClosed):
        await call
    assert client.closed.is_set()


async def test_approvals_are_declined_by_default_so_a_turn_never_hangs() -> None:
    peer = PeerTransport()
    client = Client(peer)
    peer.push({"id": 7, "method": "item/commandExecution/requestApproval", "params": APPROVAL})
    peer.push({"id": "q", "method": "item/tool/requestUserInput", "params": {}})
    answers = {m["id"]: m for m in [await peer.next_sent(), await peer.next_sent()]}
    assert answers[7] == {"id": 7, "result": {"decision": "decline"}}
    assert answers["q"] == {"id": "q", "result": {"answers": {}}}
    await client.close()


async def test_an_unknown_server_request_is_refused_with_an_error_not_ignored() -> None:
    peer = PeerTransport()
    client = Client(peer)
    peer.push({"id": 9, "method": "future/newKindOfRequest", "params": {}})
    answer = await peer.next_sent()
    assert answer["id"] == 9 and answer["error"]["code"] == -32601
    await client.close()


async def test_the_approval_callback_sees_typed_params_and_its_answer_is_sent() -> None:
    seen: list[ServerRequest] = []

    async def handler(request: ServerRequest) -> dict[str, Any] | None:
        seen.append(request)
        return await accept_all(request)

    peer = PeerTransport()
    client = Client(peer, approval_handler=handler)
    peer.push({"id": 1, "method": "item/commandExecution/requestApproval", "params": APPROVAL})
    assert await peer.next_sent() == {"id": 1, "result": {"decision": "accept"}}
    assert isinstance(seen[0].payload, CommandExecutionRequestApprovalParams)
    assert seen[0].payload.command == "rm -rf build"
    await client.close()


async def test_a_failing_callback_still_answers_with_the_safe_default() -> None:
    async def broken(request: ServerRequest) -> None:
        raise RuntimeError("ui crashed")

    peer = PeerTransport()
    client = Client(peer, approval_handler=broken)
    peer.push({"id": 2, "method": "item/fileChange/requestApproval", "params": {}})
    assert await peer.next_sent() == {"id": 2, "result": {"decision": "decline"}}
    await client.close()


async def test_a_deferred_request_is_answered_later_with_respond() -> None:
    held: list[ServerRequest] = []
    arrived = asyncio.Event()

    async def later(request: ServerRequest) -> Deferred:
        held.append(request)
        arrived.set()
        return DEFERRED

    peer = PeerTransport()
    client = Client(peer, approval_handler=later)
    peer.push({"id": 3, "method": "item/commandExecution/requestApproval", "params": APPROVAL})
    async with asyncio.timeout(5):
        await arrived.wait()
    assert peer.sent.empty()
    await client.respond(held[0].id, {"decision": "acceptForSession"})
    assert await peer.next_sent() == {"id": 3, "result": {"decision": "acceptForSession"}}
    await client.close()


async def test_every_subscription_gets_every_notification_and_ends_with_the_connection() -> None:
    peer = PeerTransport()
    client = Client(peer)
    everything = client.notifications()
    only_errors = client.notifications(lambda n: n.method == "error")
    peer.push({"method": "warning", "params": {"message": "careful"}})
    peer.push({"method": "configWarning", "params": {"summary": "x"}})
    peer.hang_up()
    assert [n.method async for n in everything] == ["warning", "configWarning"]
    assert [n async for n in only_errors] == []
