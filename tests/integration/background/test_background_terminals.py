"""Background terminals as in Codex 0.169.0 (observed on the binary against the fake model): a
command the model starts with `exec_command` that still runs when its yield time ends outlives the
turn; `thread/backgroundTerminals/list` shows it (`processId` is the session id the model polls
with `write_stdin`, `itemId` the commandExecution item, `command` as the model wrote it),
`terminate` ends one (`terminated: false` when none runs under that id), `clean` ends them all.
Unloading the thread or stopping the daemon ends them too: checked by the PID that holds the port
and by the port no longer answering."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

from tests.conftest import StartApp, StartServer
from tests.integration.background import dev_server
from tests.integration.desktop_surface.helpers import UNKNOWN_ID, refused
from tests.support.rpcclient import WAIT_S, RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def _thread(server: RpcClient, workdir: Path, sandbox: str = "danger-full-access") -> str:
    started = await server.request("thread/start", {"cwd": str(workdir), "sandbox": sandbox})
    return str(started["thread"]["id"])


# Inside bubblewrap with the network allowed, the server listens on the host's loopback.
SANDBOXED_WITH_NETWORK = ("-c", "sandbox_workspace_write.network_access=true")


async def _turn(server: RpcClient, tid: str, text: str) -> dict[str, Any]:
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": text}]})
    done = await server.notification("turn/completed", after=mark)
    return dict(done["params"]["turn"])


async def _serving(server: RpcClient, fake_model: FakeResponsesServer, tid: str, port: int) -> int:
    """The model starts the dev server in a turn that ends; the PID listening on its port."""
    fake_model.add(script.reply(dev_server.start_call(port)), script.text_reply("it runs"))
    assert (await _turn(server, tid, "start the dev server"))["status"] == "completed"
    assert (await dev_server.wait_answering(port)).startswith(b"HTTP/1.0 200")
    pid = dev_server.listener_pid(port)
    assert pid is not None
    return pid


def _output(fake_model: FakeResponsesServer, call_id: str) -> str:
    body = fake_model.requests[-1].body["input"]
    return str(
        next(i["output"] for i in body if i.get("call_id") == call_id and i["type"] == "function_call_output")
    )


async def test_a_dev_server_started_in_one_turn_answers_in_the_next_and_is_gone_after_terminate(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    tid = await _thread(server, workdir)
    listed = await server.request("thread/backgroundTerminals/list", {"threadId": tid})
    assert listed == {"data": [], "nextCursor": None}

    port = dev_server.free_port()
    pid = await _serving(server, fake_model, tid, port)
    (terminal,) = (await server.request("thread/backgroundTerminals/list", {"threadId": tid}))["data"]
    assert terminal["itemId"] == "call_dev"
    assert terminal["command"] == dev_server.command(port)
    assert terminal["cwd"] == str(workdir)
    assert (terminal["cpuPercent"], terminal["rssKb"]) == (None, None)
    session = int(terminal["processId"])
    # The model told of the session id at the end of its yield polls the server in the next turn.
    assert f"Process running with session ID {session}" in _output(fake_model, "call_dev")
    poll = {"session_id": session, "chars": "", "yield_time_ms": 5000}
    fake_model.add(
        script.reply(script.function_call("write_stdin", poll, "call_poll")), script.text_reply("ok")
    )
    assert await dev_server.get(port) is not None
    assert (await _turn(server, tid, "is it still up?"))["status"] == "completed"
    assert '"GET / HTTP/1.0" 200' in _output(fake_model, "call_poll")
    assert await dev_server.get(port) is not None

    answer = await server.request(
        "thread/backgroundTerminals/terminate", {"threadId": tid, "processId": str(session)}
    )
    assert answer == {"terminated": True}
    assert not dev_server.alive(pid)
    assert await dev_server.get(port) is None
    again = await server.request(
        "thread/backgroundTerminals/terminate", {"threadId": tid, "processId": str(session)}
    )
    assert again == {"terminated": False}
    assert (await server.request("thread/backgroundTerminals/list", {"threadId": tid}))["data"] == []


async def test_clean_ends_every_background_terminal_of_the_thread_and_pages_follow_the_process_id(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    tid = await _thread(server, workdir)
    ports = [dev_server.free_port(), dev_server.free_port()]
    pids = [await _serving(server, fake_model, tid, port) for port in ports]
    everything = (await server.request("thread/backgroundTerminals/list", {"threadId": tid}))["data"]
    assert [t["command"] for t in everything] == [dev_server.command(p) for p in ports]
    first = await server.request("thread/backgroundTerminals/list", {"threadId": tid, "limit": 1})
    assert first == {"data": everything[:1], "nextCursor": everything[0]["processId"]}
    rest = await server.request(
        "thread/backgroundTerminals/list", {"threadId": tid, "limit": 1, "cursor": first["nextCursor"]}
    )
    assert rest == {"data": everything[1:], "nextCursor": None}
    # As Codex: a limit of 0 lists them all.
    assert (await server.request("thread/backgroundTerminals/list", {"threadId": tid, "limit": 0}))[
        "data"
    ] == everything

    assert await server.request("thread/backgroundTerminals/clean", {"threadId": tid}) == {}
    assert not any(dev_server.alive(pid) for pid in pids)
    for port in ports:
        assert await dev_server.get(port) is None
    assert (await server.request("thread/backgroundTerminals/list", {"threadId": tid}))["data"] == []


async def test_unloading_the_thread_ends_its_sandboxed_dev_server(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_app("-c", "thread_unload_delay_secs=0", *SANDBOXED_WITH_NETWORK, initialize=False)
    await server.initialize(experimental=True)
    tid = await _thread(server, workdir, "workspace-write")
    port = dev_server.free_port()
    pid = await _serving(server, fake_model, tid, port)
    mark = server.mark()
    await server.request("thread/unsubscribe", {"threadId": tid})
    await server.notification("thread/closed", after=mark)
    await dev_server.wait_gone(pid)
    await dev_server.wait_refused(port)
    assert (await server.request("thread/backgroundTerminals/list", {"threadId": tid}))["data"] == []
    assert await server.request(
        "thread/backgroundTerminals/terminate", {"threadId": tid, "processId": "1000"}
    ) == {"terminated": False}


async def test_sigterm_of_the_daemon_ends_the_sandboxed_dev_server(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server(*SANDBOXED_WITH_NETWORK, initialize=False)
    await server.initialize(experimental=True)
    tid = await _thread(server, workdir, "workspace-write")
    port = dev_server.free_port()
    pid = await _serving(server, fake_model, tid, port)
    (terminal,) = (await server.request("thread/backgroundTerminals/list", {"threadId": tid}))["data"]
    assert Path(f"/proc/{terminal['osPid']}/exe").resolve().name == "bwrap"
    server.proc.send_signal(signal.SIGTERM)
    async with asyncio.timeout(WAIT_S):
        assert await server.proc.wait() == 0
    assert not dev_server.alive(pid)
    assert await dev_server.get(port) is None


async def test_bad_ids_are_refused_as_codex_refuses_them(start_app: StartApp, workdir: Path) -> None:
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    tid = await _thread(server, workdir)
    not_uuid = (
        "invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by "
        "[0-9a-fA-F-], found `n` at 1"
    )
    for method in ("list", "clean"):
        assert await refused(server, f"thread/backgroundTerminals/{method}", {"threadId": "nope"}) == (
            -32600,
            not_uuid,
        )
        assert await refused(server, f"thread/backgroundTerminals/{method}", {"threadId": UNKNOWN_ID}) == (
            -32600,
            f"thread not found: {UNKNOWN_ID}",
        )
    terminate = "thread/backgroundTerminals/terminate"
    for process_id, problem in [
        ("", "cannot parse integer from empty string"),
        ("abc", "invalid digit found in string"),
        (" 1", "invalid digit found in string"),
        ("99999999999999999999", "number too large to fit in target type"),
    ]:
        assert await refused(server, terminate, {"threadId": tid, "processId": process_id}) == (
            -32600,
            f"invalid background terminal process id: {problem}",
        )
    for process_id in ("0", "-1", "1000"):
        answer = await server.request(terminate, {"threadId": tid, "processId": process_id})
        assert answer == {"terminated": False}
    listing = "thread/backgroundTerminals/list"
    assert await refused(server, listing, {"threadId": tid, "cursor": "zzz"}) == (
        -32600,
        "invalid cursor: invalid digit found in string",
    )
    assert await refused(server, listing, {"threadId": tid, "cursor": ""}) == (
        -32600,
        "invalid cursor: cannot parse integer from empty string",
    )
    assert await server.request("thread/backgroundTerminals/clean", {"threadId": tid}) == {}
