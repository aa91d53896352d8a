"""Plan mode end to end, as Codex 0.169.0 does it: `turn/start`'s `collaborationMode` tells the model
it is planning, its `<proposed_plan>` block streams as a `plan` item (`item/plan/delta`), and its
`request_user_input` calls reach the user as `item/tool/requestUserInput`, the answer going back
to the model as the call's output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient, methods
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PLAN_TEXT = "I looked around.\n<proposed_plan>\n# Plan\n\n- step one\n- step two\n</proposed_plan>\n"
QUESTIONS = {
    "questions": [
        {
            "id": "scope",
            "header": "Scope",
            "question": "Which module first?",
            "options": [
                {"label": "core (Recommended)", "description": "The core loop."},
                {"label": "cli", "description": "The command line."},
            ],
        }
    ]
}


def _mode(mode: str, instructions: str | None = None, effort: str | None = None) -> dict[str, Any]:
    settings = {"model": "mock-model", "developer_instructions": instructions, "reasoning_effort": effort}
    return {"mode": mode, "settings": settings}


async def _server(start_app: StartApp) -> RpcClient:
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    return server


async def _thread(server: RpcClient, workdir: Path, **params: Any) -> str:
    result = await server.request("thread/start", {"cwd": str(workdir), **params})
    return str(result["thread"]["id"])


async def _turn(server: RpcClient, thread_id: str, text: str, **params: Any) -> tuple[int, str]:
    mark = server.mark()
    result = await server.request(
        "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}], **params}
    )
    return mark, str(result["turn"]["id"])


def _params(server: RpcClient, mark: int, method: str) -> list[dict[str, Any]]:
    return [m["params"] for m in server.since(mark) if m.get("method") == method]


def _mode_messages(body: dict[str, Any]) -> list[str]:
    texts = [
        part["text"]
        for item in body["input"]
        if item.get("role") == "developer"
        for part in item["content"]
        if part["text"].startswith("<collaboration_mode>")
    ]
    return texts


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for item in fake.requests[-1].body["input"]:
        if item.get("call_id") == call_id and item["type"] == "function_call_output":
            return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


async def test_the_proposed_plan_streams_as_a_plan_item_beside_the_message(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.message(PLAN_TEXT, deltas=8, msg_id="msg_plan")))
    server = await _server(start_app)
    thread_id = await _thread(server, workdir)
    mark, turn_id = await _turn(server, thread_id, "plan the work", collaborationMode=_mode("plan"))
    await server.notification("turn/completed", after=mark)

    plan_id = f"{turn_id}-plan"
    # The pieces Codex 0.169.0 sends for this very stream: tag lines go to neither item.
    assert [p["delta"] for p in _params(server, mark, "item/agentMessage/delta")] == [
        "I looked a",
        "round.\n",
    ]
    plan_deltas = _params(server, mark, "item/plan/delta")
    assert [p["delta"] for p in plan_deltas] == ["# Plan\n", "\n- step on", "e\n- step t", "wo\n"]
    assert {(p["itemId"], p["turnId"], p["threadId"]) for p in plan_deltas} == {(plan_id, turn_id, thread_id)}
    started = [p["item"] for p in _params(server, mark, "item/started") if p["item"]["type"] == "plan"]
    assert started == [{"type": "plan", "id": plan_id, "text": "", "startedAtMs": started[0]["startedAtMs"],
                        "completedAtMs": None}]  # fmt: skip
    completed = [p["item"] for p in _params(server, mark, "item/completed")]
    kinds = [item["type"] for item in completed]
    assert kinds[-2:] == ["plan", "agentMessage"]
    assert completed[-2]["text"] == "# Plan\n\n- step one\n- step two\n"
    assert completed[-1]["text"] == "I looked around.\n"

    read = await server.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    kept = read["thread"]["turns"][0]["items"]
    assert [(i["type"], i.get("text")) for i in kept[1:]] == [
        ("plan", "# Plan\n\n- step one\n- step two\n"),
        ("agentMessage", "I looked around.\n"),
    ]
    # The model planned with plan mode's instructions and the question tool; its own words stay whole.
    body = fake_model.requests[0].body
    assert len(_mode_messages(body)) == 1 and "<proposed_plan>" in _mode_messages(body)[0]
    assert "request_user_input" in [tool.get("name") for tool in body["tools"]]
    positions = [i for i, item in enumerate(body["input"]) if item.get("role") in ("developer", "user")]
    assert body["input"][positions[-1]]["content"][0]["text"] == "plan the work"


async def test_request_user_input_asks_the_client_and_hands_the_answer_to_the_model(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("request_user_input", QUESTIONS, "call_rui_1")),
        script.text_reply("Noted."),
    )
    server = await _server(start_app)
    thread_id = await _thread(server, workdir)
    mark, turn_id = await _turn(server, thread_id, "plan it", collaborationMode=_mode("plan"))
    request = await server.server_request("item/tool/requestUserInput", after=mark)
    assert request["params"] == {
        "threadId": thread_id,
        "turnId": turn_id,
        "itemId": "call_rui_1",
        "questions": [
            {
                "id": "scope",
                "header": "Scope",
                "question": "Which module first?",
                "isOther": True,
                "isSecret": False,
                "options": QUESTIONS["questions"][0]["options"],
            }
        ],
        "isBlocking": True,
        "autoResolutionMs": None,
    }
    await server.respond(request["id"], {"answers": {"scope": {"answers": ["core (Recommended)"]}}})
    await server.notification("turn/completed", after=mark)

    assert _output(fake_model, "call_rui_1") == '{"answers":{"scope":{"answers":["core (Recommended)"]}}}'
    seq = methods(server.since(mark))
    i = seq.index("item/tool/requestUserInput")
    assert seq[i - 1] == "thread/status/changed" and seq[i + 1 : i + 3] == [
        "serverRequest/resolved",
        "thread/status/changed",
    ]
    statuses = [p["status"] for p in _params(server, mark, "thread/status/changed")]
    assert {"type": "active", "activeFlags": ["waitingOnUserInput"]} in statuses
    resolved = _params(server, mark, "serverRequest/resolved")
    assert resolved == [{"threadId": thread_id, "requestId": request["id"]}]


async def test_outside_plan_mode_the_question_tool_is_refused_and_a_plan_block_is_text(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("request_user_input", QUESTIONS, "call_d1")),
        script.reply(script.message(PLAN_TEXT, deltas=8)),
    )
    server = await _server(start_app)
    mark, _ = await _turn(server, await _thread(server, workdir), "go")
    done = await server.notification("turn/completed", after=mark)
    assert "item/tool/requestUserInput" not in methods(server.since(mark))
    assert _output(fake_model, "call_d1") == "request_user_input is unavailable in Default mode"
    # Nor is a plan block anything but text outside plan mode; and the model heard of no mode.
    assert "item/plan/delta" not in methods(server.since(mark))
    assert done["params"]["turn"]["items"][-1]["text"] == PLAN_TEXT
    assert _mode_messages(fake_model.requests[0].body) == []
    # Offered all the same, as Codex does: the tool list does not change with the mode.
    assert "request_user_input" in [tool.get("name") for tool in fake_model.requests[0].body["tools"]]


async def test_the_mode_lasts_until_changed_and_each_change_is_told_once(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.text_reply("one"),
        script.text_reply("two"),
        script.text_reply("three"),
        script.text_reply("four"),
    )
    server = await _server(start_app)
    thread_id = await _thread(server, workdir)
    for text, extra in [
        ("plan", {"collaborationMode": _mode("plan", effort="high")}),
        ("still planning", {}),
        ("custom", {"collaborationMode": _mode("plan", instructions="MY PLAN RULES")}),
        ("build it", {"collaborationMode": _mode("default")}),
    ]:
        mark, _ = await _turn(server, thread_id, text, **extra)
        await server.notification("turn/completed", after=mark)

    told = [_mode_messages(request.body) for request in fake_model.requests]
    assert [len(t) for t in told] == [1, 1, 2, 3]
    assert "<proposed_plan>" in told[0][0]
    assert told[2][1] == "<collaboration_mode>MY PLAN RULES</collaboration_mode>"
    assert "default mode" in told[3][2].lower() and "<proposed_plan>" not in told[3][2]
    assert [r.body.get("reasoning", {}).get("effort") for r in fake_model.requests[:2]] == ["high", "high"]


async def test_additional_context_reaches_the_model_once_before_the_input(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("a"), script.text_reply("b"))
    server = await _server(start_app)
    thread_id = await _thread(server, workdir)
    context = {
        "app": {"kind": "application", "value": "APP CTX"},
        "page": {"kind": "untrusted", "value": "UNTRUSTED"},
        "doc": {"kind": "untrusted", "name": "webpage", "value": "U2"},
    }
    mark, _ = await _turn(server, thread_id, "with context", additionalContext=context)
    await server.notification("turn/completed", after=mark)
    mark, _ = await _turn(server, thread_id, "next")
    await server.notification("turn/completed", after=mark)

    first = fake_model.requests[0].body["input"]
    assert first[-4:] == [
        {"type": "function_call_output", "name": "page", "namespace": "agent", "output": "UNTRUSTED"},
        {"type": "function_call_output", "name": "webpage", "namespace": "agent", "output": "U2"},
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "<app>APP CTX</app>"}],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "with context"}]},
    ]
    second = fake_model.requests[1].body["input"]
    assert json.dumps(second).count("APP CTX") == 1 and json.dumps(second).count("UNTRUSTED") == 1


async def test_a_permissions_profile_sets_the_sandbox_for_this_and_later_turns(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "echo hi > out.txt"}, "c1")),
        script.text_reply("tried"),
        script.reply(script.function_call("exec_command", {"cmd": "echo hi > out2.txt"}, "c2")),
        script.text_reply("wrote"),
    )
    server = await _server(start_app)
    thread_id = await _thread(server, workdir, sandbox="workspace-write", approvalPolicy="never")
    mark, _ = await _turn(server, thread_id, "write", permissions=":read-only")
    await server.notification("turn/completed", after=mark)
    assert not (workdir / "out.txt").exists()
    permissions = fake_model.requests[0].body["input"][0]["content"][0]["text"]
    assert "`read-only`" in permissions and "`workspace-write`" not in permissions

    mark, _ = await _turn(server, thread_id, "write again", permissions=":workspace")
    await server.notification("turn/completed", after=mark)
    assert (workdir / "out2.txt").read_text() == "hi\n"


async def test_unusable_permissions_and_environments_are_refused_and_change_nothing(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await _server(start_app)
    thread_id = await _thread(server, workdir)
    text = [{"type": "text", "text": "x"}]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"permissions": ":nope"}, "unknown built-in profile `:nope`"),
        ({"permissions": ":workspace", "sandboxPolicy": {"type": "readOnly"}}, "cannot be combined"),
        ({"environments": [{"environmentId": "remote1", "cwd": str(workdir)}]}, "unknown turn environment"),
    ]
    for params, message in cases:
        reply = await server.call("turn/start", {"threadId": thread_id, "input": text, **params})
        assert reply["error"]["code"] == -32600 and message in reply["error"]["message"], reply
    assert fake_model.requests == []
    read = await server.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    assert read["thread"]["turns"] == []


async def test_the_local_environment_selects_the_folder(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("ok"))
    (workdir / "sub").mkdir()
    server = await _server(start_app)
    thread_id = await _thread(server, workdir)
    environments = [{"environmentId": "local", "cwd": str(workdir / "sub")}]
    mark, _ = await _turn(server, thread_id, "here", environments=environments)
    await server.notification("turn/completed", after=mark)
    assert f"<cwd>{workdir / 'sub'}</cwd>" in json.dumps(fake_model.requests[0].body["input"])


async def test_an_interrupt_while_the_user_is_asked_withdraws_the_question(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.function_call("request_user_input", QUESTIONS, "call_rui_2")))
    server = await _server(start_app)
    thread_id = await _thread(server, workdir)
    mark, turn_id = await _turn(server, thread_id, "plan it", collaborationMode=_mode("plan"))
    request = await server.server_request("item/tool/requestUserInput", after=mark)
    await server.request("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    assert _params(server, mark, "serverRequest/resolved") == [
        {"threadId": thread_id, "requestId": request["id"]}
    ]
    assert len(fake_model.requests) == 1


async def test_an_error_answer_tells_the_model_there_was_no_answer(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("request_user_input", QUESTIONS, "call_rui_3")),
        script.text_reply("I will assume core."),
    )
    server = await _server(start_app)
    thread_id = await _thread(server, workdir)
    mark, _ = await _turn(server, thread_id, "plan it", collaborationMode=_mode("plan"))
    request = await server.server_request("item/tool/requestUserInput", after=mark)
    await server.send({"id": request["id"], "error": {"code": -32000, "message": "dismissed"}})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    assert _output(fake_model, "call_rui_3") == "request_user_input was not answered"


async def test_a_steer_in_the_middle_of_the_plan_completes_both_items_with_the_text_so_far(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    response = script.reply(script.message(PLAN_TEXT, deltas=8, msg_id="msg_cut"))
    steps = response["steps"]
    deltas = [
        i for i, s in enumerate(steps) if s.get("event", {}).get("type") == "response.output_text.delta"
    ]
    steps.insert(deltas[4] + 1, script.gated("mid-plan"))  # after "\n- step on"
    fake_model.add(response, script.text_reply("Refocused."))
    server = await _server(start_app)
    thread_id = await _thread(server, workdir)
    mark, turn_id = await _turn(server, thread_id, "plan it", collaborationMode=_mode("plan"))
    await fake_model.wait_for_gate("mid-plan")
    steer = {
        "threadId": thread_id,
        "input": [{"type": "text", "text": "tests first"}],
        "expectedTurnId": turn_id,
    }
    await server.request("turn/steer", steer)
    await server.notification("turn/completed", after=mark)

    completed = [p["item"] for p in _params(server, mark, "item/completed")]
    texts = [(i["type"], i["text"]) for i in completed if i["type"] in ("plan", "agentMessage")]
    assert texts[:2] == [("plan", "# Plan\n\n- step on"), ("agentMessage", "I looked around.\n")]
    started = [p["item"]["id"] for p in _params(server, mark, "item/started")]
    assert all(i["id"] in started for i in completed)
