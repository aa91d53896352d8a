"""`turn/start` with `environments: []`: the turn runs with no environment, as on Codex 0.169.0.

Observed on the binary: the turn starts (`thread/settings/updated` with `environments: []` first),
the model is told only the date and time zone, a command, patch, image or stdin call is answered
`No usable execution environment is available. ...` with no item, and `thread/read` shows
`environments: []`; the tool list does not change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

UNAVAILABLE = (
    "No usable execution environment is available. "
    "Wait for an environment to become available before using this tool."
)
PATCH = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"


async def _turn(server: RpcClient, thread_id: str, text: str, **params: Any) -> list[dict[str, Any]]:
    mark = server.mark()
    await server.request(
        "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}], **params}
    )
    await server.notification("turn/completed", after=mark)
    return server.since(mark)


def _env_context(body: dict[str, Any]) -> list[str]:
    texts = [c.get("text", "") for i in body["input"] if i.get("type") == "message" for c in i["content"]]
    return [t for t in texts if t.startswith("<environment_context>")]


async def test_a_turn_without_an_environment_runs_and_its_tools_say_so(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(
            script.function_call("exec_command", {"cmd": "touch made.txt"}, "call_e"),
            script.custom_tool_call("apply_patch", PATCH, "call_p"),
            script.function_call("view_image", {"path": "x.png"}, "call_v"),
            script.function_call("write_stdin", {"session_id": 1, "chars": ""}, "call_w"),
        ),
        script.text_reply("nothing to run on"),
        script.text_reply("back home"),
    )
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    messages = await _turn(server, thread_id, "try", environments=[])

    methods = [m.get("method") for m in messages]
    assert methods.index("thread/settings/updated") < methods.index("turn/started")
    (updated,) = [m["params"] for m in messages if m.get("method") == "thread/settings/updated"]
    assert updated["threadSettings"]["environments"] == []
    items = [m["params"]["item"]["type"] for m in messages if m.get("method") == "item/completed"]
    assert items == ["userMessage", "agentMessage"]
    assert not (workdir / "made.txt").exists() and not (workdir / "a.txt").exists()

    first, second = (r.body for r in fake_model.requests[:2])
    (context,) = _env_context(first)
    assert "<cwd>" not in context and "<shell>" not in context and "<current_date>" in context
    outputs = {i["call_id"]: i["output"] for i in second["input"] if i["type"].endswith("_output")}
    assert outputs == {
        "call_e": UNAVAILABLE,
        "call_p": UNAVAILABLE,
        "call_v": UNAVAILABLE,
        "call_w": UNAVAILABLE,
    }
    assert first["tools"] == second["tools"]
    read = await server.request("thread/read", {"threadId": thread_id})
    assert read["thread"]["environments"] == []

    # Choosing `local` again brings the folder back, and the model is told.
    await _turn(server, thread_id, "again", environments=[{"environmentId": "local", "cwd": str(workdir)}])
    third = fake_model.requests[2].body
    assert f"<cwd>{workdir}</cwd>" in _env_context(third)[-1]
    read = await server.request("thread/read", {"threadId": thread_id})
    assert [e["environmentId"] for e in read["thread"]["environments"]] == ["local"]
