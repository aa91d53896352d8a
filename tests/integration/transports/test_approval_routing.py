"""An approval is answered only by a client it was sent to, and its id cannot be guessed.

The attack: a second client on the daemon that never subscribed to the thread answers the
approval request (guessing Codex's sequential ids 0, 1, 2 …) to approve a command itself.
"""

from __future__ import annotations

from pathlib import Path

from tests.integration.transports.conftest import StartSocketServer
from tests.support.wsclient import WsClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

ESCALATED = {
    "cmd": "echo pwned > out.txt",
    "sandbox_permissions": "require_escalated",
    "justification": "Write out.txt?",
}
APPROVAL = "item/commandExecution/requestApproval"


async def test_a_reply_from_a_client_the_request_was_not_sent_to_is_ignored(
    socket_server: StartSocketServer,
    clients: list[WsClient],
    fake_model: FakeResponsesServer,
    workdir: Path,
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "c1")),
        script.reply(script.function_call("exec_command", ESCALATED, "c2")),
        script.text_reply("Done."),
    )
    server = await socket_server("--listen", "unix://", "--listen", "ws://127.0.0.1:0")
    owner, stranger = await server.connect_unix(), await server.connect_ws()
    clients += [owner, stranger]
    await owner.initialize()
    await stranger.initialize()
    start = {"cwd": str(workdir), "sandbox": "read-only", "approvalPolicy": "on-request"}
    thread_id = (await owner.request("thread/start", start))["thread"]["id"]
    mark = owner.mark()
    await owner.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})

    first = await owner.server_request(APPROVAL, after=mark)
    # The stranger answers with the right id (it could have guessed a counter) before the owner does.
    await stranger.respond(first["id"], {"decision": "accept"})
    await stranger.request("thread/loaded/list", {})  # its reply has been read by now
    await owner.respond(first["id"], {"decision": "decline"})
    second = await owner.server_request(APPROVAL, after=owner.messages.index(first) + 1)
    await owner.respond(second["id"], {"decision": "decline"})
    await owner.notification("turn/completed", after=mark)

    assert not (workdir / "out.txt").exists()
    items = [
        m["params"]["item"]
        for m in owner.since(mark)
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "commandExecution"
    ]
    assert [item["status"] for item in items] == ["declined", "declined"]
    resolved = [
        m["params"]["requestId"] for m in owner.since(mark) if m.get("method") == "serverRequest/resolved"
    ]
    assert resolved == [first["id"], second["id"]]
    assert not [m for m in stranger.messages if m.get("method") == APPROVAL]

    ids = [first["id"], second["id"]]
    assert all(isinstance(i, int) and 0 <= i < 2**53 for i in ids)
    assert abs(ids[1] - ids[0]) != 1 and max(ids) >= 2**20, ids  # not a counter from 0
