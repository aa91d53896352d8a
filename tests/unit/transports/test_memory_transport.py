"""The in-process transport behaves like a socket pair: ordered frames, half-close, close."""

from __future__ import annotations

import asyncio

import pytest

from tether_server.transports.memory import MemoryStream, memory_pair


async def _drain(stream: MemoryStream) -> list[bytes]:
    async with asyncio.timeout(5):
        return [frame async for frame in stream.frames()]


async def test_frames_arrive_in_order_at_the_other_end_only() -> None:
    server, client = memory_pair()
    await client.send(b"one")
    await client.send_batch([b"two", b"three"])
    await server.send(b"reply")
    client.finish_sending()
    server.finish_sending()
    assert await _drain(server) == [b"one", b"two", b"three"]
    assert await _drain(client) == [b"reply"]


async def test_a_half_closed_end_still_reads_what_the_peer_sends_after() -> None:
    server, client = memory_pair()
    await client.send(b"request")
    client.finish_sending()
    assert await _drain(server) == [b"request"]  # the server sees end of input
    await server.send(b"answer")  # and can still answer, as over stdio after stdin closed
    await server.close("peer closed")
    assert await _drain(client) == [b"answer"]
    with pytest.raises(ConnectionError):
        await client.send(b"late")


async def test_close_ends_both_directions_and_refuses_further_sends() -> None:
    server, client = memory_pair()
    await client.send(b"unread")
    await server.close("slow consumer: outbox full")
    assert await _drain(server) == []  # a closed end reads nothing more
    assert await _drain(client) == []
    assert client.close_reason == "slow consumer: outbox full"
    for end in (server, client):
        with pytest.raises(ConnectionError):
            await end.send(b"x")
    await server.close()  # idempotent
