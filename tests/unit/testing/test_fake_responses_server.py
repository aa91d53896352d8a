"""The scripted fake Responses server: ordering, recording, gates, errors and the CLI."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tether_server.providers.base import (
    Completed,
    ModelEvent,
    ModelRequest,
    OutputItemDone,
    OutputTextDelta,
    ProviderSettings,
)
from tether_server.providers.responses import ResponsesProvider
from tether_testing import (
    FakeResponsesServer,
    delay,
    function_call,
    gated,
    message,
    reply,
    text_reply,
)
from tether_testing.script import load_script


def model_request(text: str = "hi") -> ModelRequest:
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return ModelRequest(model="gpt-test", instructions="", input=[user])


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(trust_env=False, timeout=5.0) as http:
        yield http


async def run_turn(provider: ResponsesProvider, text: str = "hi") -> list[ModelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in provider.stream(model_request(text))]


def final_text(events: list[ModelEvent]) -> str:
    return "".join(event.delta for event in events if isinstance(event, OutputTextDelta))


async def test_responses_are_served_in_script_order_and_every_request_is_recorded(
    client: httpx.AsyncClient,
) -> None:
    script = [reply(function_call("exec_command", {"cmd": "ls"}, "call_1")), text_reply("done")]
    async with FakeResponsesServer(script) as fake:
        provider = ResponsesProvider(ProviderSettings("fake", fake.base_url), client)
        first = await run_turn(provider, "list files")
        second = await run_turn(provider, "thanks")

    assert [e.item["type"] for e in first if isinstance(e, OutputItemDone)] == ["function_call"]
    assert final_text(second) == "done"
    assert [r.body["input"][0]["content"][0]["text"] for r in fake.requests] == ["list files", "thanks"]
    assert fake.remaining == 0


async def test_request_beyond_the_script_gets_a_500_explaining_the_script_ran_out(
    client: httpx.AsyncClient,
) -> None:
    async with FakeResponsesServer([]) as fake:
        answer = await client.post(f"{fake.base_url}/responses", json={"model": "m"})

    assert answer.status_code == 500
    assert "script exhausted" in answer.json()["error"]["message"]
    assert len(fake.requests) == 1


async def test_gated_stream_pauses_until_the_test_releases_it(client: httpx.AsyncClient) -> None:
    script = [reply(message("before", msg_id="m1"), gated("steer"), message("after", msg_id="m2"))]
    async with FakeResponsesServer(script) as fake:
        provider = ResponsesProvider(ProviderSettings("fake", fake.base_url), client)
        turn = asyncio.create_task(run_turn(provider))
        await fake.wait_for_gate("steer")
        paused_while_gated = not turn.done()
        fake.release("steer")
        events = await turn

    assert paused_while_gated
    assert [e.item["id"] for e in events if isinstance(e, OutputItemDone)] == ["m1", "m2"]
    assert isinstance(events[-1], Completed)


async def test_wait_for_request_times_out_when_no_request_comes() -> None:
    async with FakeResponsesServer([text_reply("unused")]) as fake:
        with pytest.raises(TimeoutError):
            await fake.wait_for_request(1, within_s=0.05)


async def test_wait_for_request_wakes_when_the_request_arrives(client: httpx.AsyncClient) -> None:
    async with FakeResponsesServer([text_reply("x")]) as fake:
        waiter = asyncio.create_task(fake.wait_for_request(1))
        await client.post(f"{fake.base_url}/responses", json={"model": "wanted"})
        recorded = await waiter

    assert recorded.body == {"model": "wanted"}


async def test_delayed_reply_still_streams_completely(client: httpx.AsyncClient) -> None:
    async with FakeResponsesServer([reply(delay(5), message("slow"), delay(5))]) as fake:
        events = await run_turn(ResponsesProvider(ProviderSettings("fake", fake.base_url), client))

    assert final_text(events) == "slow"


async def test_twenty_thousand_deltas_stream_quickly(client: httpx.AsyncClient) -> None:
    text = "x" * 20_000
    async with FakeResponsesServer([text_reply(text, deltas=20_000)]) as fake:
        provider = ResponsesProvider(ProviderSettings("fake", fake.base_url), client)
        async with asyncio.timeout(5):
            events = await run_turn(provider)

    assert sum(isinstance(event, OutputTextDelta) for event in events) == 20_000
    assert final_text(events) == text


async def test_looping_script_replays_from_the_start(client: httpx.AsyncClient) -> None:
    async with FakeResponsesServer([text_reply("again")], loop_script=True) as fake:
        provider = ResponsesProvider(ProviderSettings("fake", fake.base_url), client)
        texts = [final_text(await run_turn(provider)) for _ in range(3)]

    assert texts == ["again", "again", "again"]


async def test_gate_can_be_released_and_requests_listed_over_http(client: httpx.AsyncClient) -> None:
    async with FakeResponsesServer([reply(gated("go"), message("released"))]) as fake:
        provider = ResponsesProvider(ProviderSettings("fake", fake.base_url), client)
        turn = asyncio.create_task(run_turn(provider))
        await fake.wait_for_gate("go")
        await client.post(f"http://127.0.0.1:{fake.port}/_fake/release/go")
        events = await turn
        listed = (await client.get(f"http://127.0.0.1:{fake.port}/_fake/requests")).json()

    assert final_text(events) == "released"
    assert [entry["path"] for entry in listed] == ["/v1/responses"]


async def test_models_endpoint_answers_an_empty_list(client: httpx.AsyncClient) -> None:
    async with FakeResponsesServer() as fake:
        answer = await client.get(f"{fake.base_url}/models")

    assert answer.json() == {"object": "list", "data": []}


async def test_sse_wire_format_names_each_event_and_numbers_them(client: httpx.AsyncClient) -> None:
    async with FakeResponsesServer([text_reply("hi", deltas=1)]) as fake:
        answer = await client.post(f"{fake.base_url}/responses", json={})

    assert answer.headers["content-type"] == "text/event-stream"
    blocks = [block for block in answer.text.split("\n\n") if block]
    names = [block.split("\n")[0] for block in blocks]
    assert names == [
        "event: response.created",
        "event: response.output_item.added",
        "event: response.output_text.delta",
        "event: response.output_item.done",
        "event: response.completed",
    ]
    sequence = [
        json.loads(block.split("\n")[1].removeprefix("data: "))["sequence_number"] for block in blocks
    ]
    assert sequence == sorted(sequence)


def test_script_file_accepts_full_responses_and_bare_strings() -> None:
    script = load_script(json.dumps([text_reply("full"), "shorthand"]))

    assert [entry["kind"] for entry in script] == ["sse", "sse"]
    with pytest.raises(ValueError, match="JSON list"):
        load_script('{"kind": "sse"}')


async def test_standalone_cli_serves_a_script_file(tmp_path: Path, client: httpx.AsyncClient) -> None:
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(["Hello from the CLI"]), encoding="utf-8")
    command = [sys.executable, "-m", "tether_testing.fake_responses", "--script", str(script_file)]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdout is not None
        async with asyncio.timeout(10):
            banner = (await process.stdout.readline()).decode().strip()
        base_url = banner.removeprefix("listening on ")
        events = await run_turn(ResponsesProvider(ProviderSettings("cli", base_url), client))
    finally:
        process.terminate()
        async with asyncio.timeout(10):
            await process.wait()

    assert banner.startswith("listening on http://127.0.0.1:")
    assert base_url.endswith("/v1")
    assert final_text(events) == "Hello from the CLI"
    assert process.returncode == 0
