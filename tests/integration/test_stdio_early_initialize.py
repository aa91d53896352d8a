"""The stdio front: `initialize` answered while the daemon loads, then handed over to the full server.

Each comparison runs the same bytes through a daemon with the front and one without it
(`TETHER_EARLY_INITIALIZE=0`, where the full server answers everything); every message is checked
against the reference schema by `AppServer`.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartServer
from tests.support.appserver import WAIT_S, AppServer, mock_provider_args
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

FRONT_OFF = {"TETHER_EARLY_INITIALIZE": "0"}
SHOW_EARLY = {"TETHER_LOG": "info,tether_server.rpc.dispatcher=debug"}
EARLY_LINE = "connection.initialized_early"

FULL_INITIALIZE = {
    "id": 1,
    "method": "initialize",
    "params": {
        "clientInfo": {"name": "front_test", "title": "Front Test", "version": "2.5"},
        "capabilities": {
            "experimentalApi": True,
            "optOutNotificationMethods": ["thread/started"],
            "requestAttestation": False,
            "extensions": {"x": [1, "two", None]},
        },
    },
}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


async def _first_answers(home: Path, data: bytes, count: int, env: dict[str, str]) -> list[dict[str, Any]]:
    """Write `data` at once to a fresh daemon on `home`; the first `count` messages it sends back."""
    server = await AppServer.start(home, env={**SHOW_EARLY, **env})
    await server.send_raw(data)
    await server.wait_for(lambda _m: len(server.messages) >= count)
    assert await server.close() == 0
    return server.messages[:count]


def _answered_early(server: AppServer) -> bool:
    return EARLY_LINE in server.stderr()


async def test_the_early_answer_equals_the_full_servers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    early = await AppServer.start(home, env=SHOW_EARLY)
    await early.send_raw(_line(FULL_INITIALIZE))
    early_reply = await early.wait_for(lambda m: m.get("id") == 1)
    # The full server logs the hand-off once it is up; a client gone before that ends the daemon
    # without it (test_stdio_eof), so a request keeps this one until then.
    await early.request("thread/loaded/list", {})
    assert await early.close() == 0
    assert _answered_early(early)

    logged = len(early.stderr())  # both write to the same home's log file
    full = await AppServer.start(home, env={**SHOW_EARLY, **FRONT_OFF})
    await full.send_raw(_line(FULL_INITIALIZE))
    full_reply = await full.wait_for(lambda m: m.get("id") == 1)
    assert await full.close() == 0
    assert EARLY_LINE not in full.stderr()[logged:]

    assert early_reply == full_reply
    assert early_reply["result"]["userAgent"].startswith("front_test/0.169.0 (")
    assert early_reply["result"]["codexHome"] == str(home)


async def test_experimental_api_and_opt_outs_still_hold_after_the_hand_off(
    tmp_path: Path, workdir: Path
) -> None:
    server = await AppServer.start(tmp_path / "home", env=SHOW_EARLY)
    await server.send_raw(_line(FULL_INITIALIZE))
    await server.wait_for(lambda m: m.get("id") == 1)
    started = await server.request("thread/start", {"cwd": str(workdir), "mockExperimentalField": "x"})
    modes = await server.request("collaborationMode/list", {})
    await server.request("thread/loaded/list", {})
    assert await server.close() == 0
    assert _answered_early(server)
    assert started["thread"]["status"] == {"type": "idle"}
    assert [m["mode"] for m in modes["data"]] == ["plan", "default"]
    assert not [m for m in server.messages if m.get("method") == "thread/started"]


async def test_without_the_capability_experimental_fields_are_refused_after_the_hand_off(
    tmp_path: Path,
) -> None:
    server = await AppServer.start(tmp_path / "home", env=SHOW_EARLY)
    await server.send_raw(
        _line({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "a", "version": "1"}}})
    )
    await server.wait_for(lambda m: m.get("id") == 1)
    reply = await server.call("thread/start", {"mockExperimentalField": "x"})
    assert await server.close() == 0
    assert _answered_early(server)
    assert reply["error"] == {
        "code": -32600,
        "message": "thread/start.mockExperimentalField requires experimentalApi capability",
    }


async def test_requests_written_with_initialize_in_one_write_are_answered_in_order(tmp_path: Path) -> None:
    pipelined = b"".join(
        [
            _line(FULL_INITIALIZE),
            _line({"method": "initialized"}),
            _line({"id": 2, "method": "thread/loaded/list", "params": {}}),
            _line({"id": 3, "method": "initialize", "params": {"clientInfo": {"name": "b", "version": "1"}}}),
            _line({"id": 4, "method": "model/list", "params": {}}),
        ]
    )
    early = await _first_answers(tmp_path / "a", pipelined, 4, {})
    full = await _first_answers(tmp_path / "b", pipelined, 4, FRONT_OFF)
    assert [m.get("id") for m in early] == [1, 2, 3, 4]
    assert early[1] == {"id": 2, "result": {"data": [], "nextCursor": None}}
    assert early[2] == {"id": 3, "error": {"code": -32600, "message": "Already initialized"}}
    assert [m.get("id") for m in full] == [1, 2, 3, 4]
    assert early[1:] == full[1:]


async def test_a_first_request_other_than_initialize_is_refused_as_before(tmp_path: Path) -> None:
    data = _line({"id": 7, "method": "thread/list", "params": {}}) + _line(FULL_INITIALIZE)
    early = await _first_answers(tmp_path / "a", data, 2, {})
    full = await _first_answers(tmp_path / "b", data, 2, FRONT_OFF)
    assert early[0] == {"id": 7, "error": {"code": -32600, "message": "Not initialized"}}
    assert early[1]["result"]["codexHome"] == str(tmp_path / "a")
    assert early[0] == full[0]


_INFO = {"name": "x", "version": "1"}
_PLAIN = b'{"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "x", "version": "1"}}}'


@pytest.mark.parametrize(
    "first_line",
    [
        b"this is not json",
        b"[1, 2]",
        b'{"id": 1, "method": "initialize"}',
        b'{"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "x"}}}',
        b'{"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "x\\u0001", "version": "1"}}}',
        b'{"id": true, "method": "initialize", "params": {"clientInfo": {"name": "x", "version": "1"}}}',
        b'{"id": 1.5, "method": "initialize", "params": {"clientInfo": {"name": "x", "version": "1"}}}',
        b'{"id": 99999999999999999999999, "method": "initialize", "params": {}}',
        b'{"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "x", "version": "1"},'
        b' "capabilities": {"experimentalApi": "yes"}}}',
        b'{"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "x", "version": "1"},'
        b' "capabilities": {"extensions": {"n": NaN}}}}',
        b'{"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "\\ud800", "version": "1"}}}',
        b'{"id": 1, "method": "initialize", "params": {"client_info": {"name": "x", "version": "1"}}}',
        _PLAIN.replace(b"}}}", b'}, "more": 1}}'),
        b"\xef\xbb\xbf" + _PLAIN,
        _PLAIN.replace(b"}}}", b'}}, "z": 0}'),
        b'{"id": 1, "method": "initialize", "params": [' + json.dumps(_INFO).encode() + b"]}",
    ],
)
async def test_an_odd_first_line_gets_the_answer_it_got_before(tmp_path: Path, first_line: bytes) -> None:
    probe = _line({"id": "after", "method": "thread/loaded/list", "params": {}})
    early = await _first_answers(tmp_path / "a", first_line + b"\n" + probe, 2, {})
    full = await _first_answers(tmp_path / "b", first_line + b"\n" + probe, 2, FRONT_OFF)
    for answers in (early, full):
        for message in answers:
            if "result" in message and "codexHome" in message["result"]:
                message["result"]["codexHome"] = "<home>"
    assert early == full


async def test_stdin_eof_exits_at_once_with_the_database_intact(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(script.text_reply("all done"))
    home = tmp_path / "home"
    server = await start_server(home=home)
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    completed = await server.notification("turn/completed", after=mark)
    assert completed["params"]["turn"]["status"] == "completed"
    assert await server.close() == 0

    with sqlite3.connect(home / "tether.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    again = await AppServer.start(home, mock_provider_args(fake_model.base_url))
    await again.initialize()
    read = await again.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    assert await again.close() == 0
    turns = read["thread"]["turns"]
    assert [t["status"] for t in turns] == ["completed"]
    messages = [i for i in turns[0]["items"] if i["type"] == "agentMessage"]
    assert [m["text"] for m in messages] == ["all done"]


async def test_a_bad_config_found_after_the_early_answer_still_stops_the_daemon_with_its_message(
    tmp_path: Path,
) -> None:
    server = await AppServer.start(tmp_path / "home", ["-c", 'sandbox_mode="bogus"'])
    await server.send_raw(_line(FULL_INITIALIZE))
    # stdin stays open: the daemon stops by itself. (A client that closes stdin first has gone
    # before the error is found, and the daemon exits at once without it: test_stdio_eof.)
    async with asyncio.timeout(WAIT_S):
        assert await server.proc.wait() == 2
    assert await server.close() == 2
    assert "configuration error" in server.stderr() and "sandbox_mode" in server.stderr()
    assert all(m.get("id") == 1 and "result" in m for m in server.messages)
