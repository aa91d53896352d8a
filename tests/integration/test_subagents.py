"""Sub-agents as Codex 0.169.0 has them (`features.multi_agent`, on by default): the model calls the
deferred `multi_agent_v1` tools, a child thread runs its own turn against the same model, its events
and its approval requests reach the parent's client, and `wait_agent` hands the child's final message
back to the parent. Outputs, items and errors are the ones Codex answered for the same calls."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer
from tether_testing.script import OutputItem, ScriptedResponse

CHILD_TASK = "CHILD-TASK: say hi"


def agent_call(name: str, arguments: dict[str, Any], call_id: str) -> OutputItem:
    """A call of a `multi_agent_v1` tool, namespaced as a model calls a tool `tool_search` found."""
    item = script.function_call(name, arguments, call_id)
    item.added["namespace"] = item.done["namespace"] = "multi_agent_v1"
    return item


def is_child(body: dict[str, Any]) -> bool:
    return any(
        entry.get("role") == "user" and any(CHILD_TASK in part.get("text", "") for part in entry["content"])
        for entry in body["input"]
        if entry.get("type") == "message"
    )


def later(gate: str) -> ScriptedResponse:
    """A response whose items are filled in once the test knows them (the child's id)."""
    return {"kind": "sse", "steps": [script.gated(gate)], "headers": {}}


def fill(response: ScriptedResponse, *items: OutputItem) -> None:
    response["steps"].extend(script.reply(*items)["steps"])


def outputs(fake: FakeResponsesServer) -> dict[str, Any]:
    return {
        entry["call_id"]: entry["output"]
        for request in fake.requests
        for entry in request.body["input"]
        if entry.get("type") == "function_call_output"
    }


def _turn_completed_on(message: dict[str, Any], thread_id: str) -> bool:
    return message.get("method") == "turn/completed" and message["params"]["threadId"] == thread_id


def collab_items(messages: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [
        m["params"]["item"]
        for m in messages
        if m.get("method") == method and m["params"]["item"]["type"] == "collabAgentToolCall"
    ]


async def _spawn_then_wait(
    start_app: StartApp,
    fake: FakeResponsesServer,
    workdir: Path,
    *child: ScriptedResponse,
    extra: tuple[str, ...] = (),
) -> tuple[Any, str, str, int]:
    wait, close = later("wait"), later("close")
    fake.add(
        script.reply(agent_call("spawn_agent", {"message": CHILD_TASK}, "call_spawn")),
        wait,
        close,
        script.text_reply("parent done"),
    )
    fake.add_for(is_child, *child)
    server = await start_app(*extra)
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    parent = thread["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": parent, "input": [{"type": "text", "text": "hi spawn"}]})
    spawned = await server.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "collabAgentToolCall"
    )
    agent = spawned["params"]["item"]["receiverThreadIds"][0]
    fill(wait, agent_call("wait_agent", {"targets": [agent], "timeout_ms": 30000}, "call_wait"))
    fake.release("wait")
    fill(close, agent_call("close_agent", {"target": agent}, "call_close"))
    fake.release("close")
    return server, parent, agent, mark


async def test_spawn_child_turn_and_wait_return_the_childs_final_message(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server, parent, agent, mark = await _spawn_then_wait(
        start_app, fake_model, workdir, script.text_reply("child final answer")
    )
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    out = outputs(fake_model)
    spawn = json.loads(out["call_spawn"])
    assert spawn["agent_id"] == agent and isinstance(spawn["nickname"], str) and spawn["nickname"]
    assert json.loads(out["call_wait"]) == {
        "status": {agent: {"completed": "child final answer"}},
        "timed_out": False,
    }
    assert json.loads(out["call_close"]) == {"previous_status": {"completed": "child final answer"}}
    # Then, as on Codex, the model is told the agent finished, after the wait's output.
    after_wait = next(r.body["input"] for r in fake_model.requests if '"call_close"' in json.dumps(r.body))
    wait_at = next(i for i, e in enumerate(after_wait) if e.get("call_id") == "call_wait" and "output" in e)
    note = after_wait[wait_at + 1]
    assert note["role"] == "user" and note["content"][0]["text"] == (
        "<subagent_notification>\n"
        + json.dumps(
            {"agent_path": agent, "status": {"completed": "child final answer"}}, separators=(",", ":")
        )
        + "\n</subagent_notification>"
    )
    child_request = next(r for r in fake_model.requests if is_child(r.body))
    assert child_request.body["input"][-1]["content"][0]["text"] == CHILD_TASK
    # The parent's client sees the child's turn, and the collab items of the parent's calls.
    seen = server.since(mark)
    child_turn = [m["method"] for m in seen if (m.get("params") or {}).get("threadId") == agent]
    assert "turn/started" in child_turn and "turn/completed" in child_turn
    # As on Codex, no thread/started is sent for a spawned thread.
    assert not [m for m in seen if m.get("method") == "thread/started"]
    completed = collab_items(seen, "item/completed")
    assert [(i["tool"], i["status"]) for i in completed] == [
        ("spawnAgent", "completed"),
        ("wait", "completed"),
        ("closeAgent", "completed"),
    ]
    assert completed[0]["senderThreadId"] == parent and completed[0]["prompt"] == CHILD_TASK
    assert completed[0]["agentsStates"] == {agent: {"status": "pendingInit", "message": None}}
    assert completed[1]["agentsStates"] == {agent: {"status": "completed", "message": "child final answer"}}
    started = collab_items(seen, "item/started")
    assert [(i["tool"], i["status"], i["receiverThreadIds"]) for i in started] == [
        ("spawnAgent", "inProgress", []),
        ("wait", "inProgress", [agent]),
        ("closeAgent", "inProgress", [agent]),
    ]
    await server.notification(
        "thread/status/changed",
        after=mark,
        where=lambda p: p["threadId"] == agent and p["status"]["type"] == "notLoaded",
    )


async def test_the_child_thread_reads_and_lists_as_codexs_spawned_agents(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server, parent, agent, mark = await _spawn_then_wait(
        start_app, fake_model, workdir, script.text_reply("child final answer")
    )
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    child = (await server.request("thread/read", {"threadId": agent, "includeTurns": True}))["thread"]
    assert child["parentThreadId"] == parent and child["threadSource"] == "subagent"
    assert child["agentNickname"] and child["agentRole"] is None and child["preview"] == CHILD_TASK
    spawn = child["source"]["subAgent"]["thread_spawn"]
    assert spawn == {
        "parent_thread_id": parent,
        "depth": 1,
        "agent_path": None,
        "agent_nickname": child["agentNickname"],
        "agent_role": None,
    }
    assert [i["type"] for i in child["turns"][0]["items"]] == ["userMessage", "agentMessage"]
    # As on Codex: left out of the default list, listed when asked for by kind.
    listed = await server.request("thread/list", {})
    assert [t["id"] for t in listed["data"]] == [parent]
    spawned = await server.request("thread/list", {"sourceKinds": ["subAgentThreadSpawn"]})
    assert [t["id"] for t in spawned["data"]] == [agent]
    assert spawned["data"][0]["parentThreadId"] == parent
    # Closed by close_agent: unloaded, as on Codex.
    assert (await server.request("thread/loaded/list", {}))["data"] == [parent]


async def test_a_childs_command_approval_is_asked_of_the_parents_client(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    escalated = {
        "cmd": "touch made.txt",
        "sandbox_permissions": "require_escalated",
        "justification": "need it",
    }
    server, parent, agent, mark = await _spawn_then_wait(
        start_app,
        fake_model,
        workdir,
        script.reply(script.function_call("exec_command", escalated, "call_exec")),
        script.text_reply("child final answer"),
    )
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    assert request["params"]["threadId"] == agent and request["params"]["itemId"] == "call_exec"
    await server.respond(request["id"], {"decision": "accept"})
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    assert (workdir / "made.txt").exists()
    assert json.loads(outputs(fake_model)["call_wait"])["status"] == {
        agent: {"completed": "child final answer"}
    }


async def test_bad_calls_answer_as_codex_does(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    unknown = "01a23341-62be-7460-8ef7-ae93ec329938"
    fake_model.add(
        script.reply(
            agent_call("wait_agent", {"targets": ["nope"], "timeout_ms": 10000}, "c1"),
            agent_call("close_agent", {"target": unknown}, "c2"),
            agent_call("spawn_agent", {}, "c3"),
            agent_call("wait_agent", {"targets": []}, "c5"),
            script.function_call("spawn_agent", {"message": "x"}, "c6"),
            agent_call("spawn_agent", {"message": "x", "reasoning_effort": "banana"}, "e1"),
            agent_call("spawn_agent", {"message": 5}, "e3"),
            agent_call("wait_agent", {"targets": "x"}, "e4"),
            agent_call("close_agent", {}, "e5"),
        ),
        script.text_reply("done"),
    )
    server = await start_app()
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    mark = server.mark()
    await server.request(
        "turn/start", {"threadId": thread["thread"]["id"], "input": [{"type": "text", "text": "go"}]}
    )
    await server.notification("turn/completed", after=mark)
    out = outputs(fake_model)
    assert out["c1"].startswith("invalid agent id nope")
    assert out["c2"] == f"agent with id {unknown} not found"
    assert out["c3"] == "Provide one of: message or items"
    assert out["c5"] == "agent ids must be non-empty"
    # Without its namespace the name is not a tool, as on Codex.
    assert out["c6"] == "unsupported call: spawn_agent"
    model = thread["model"]
    assert out["e1"] == (
        f"Reasoning effort `banana` is not supported for model `{model}`. "
        "Supported reasoning efforts: low, medium, high, xhigh"
    )
    # Codex's argument parser also names the line and column.
    assert out["e3"].startswith(
        "failed to parse function arguments: invalid type: integer `5`, expected a string"
    )
    assert out["e4"].startswith(
        'failed to parse function arguments: invalid type: string "x", expected a sequence'
    )
    assert out["e5"].startswith("failed to parse function arguments: missing field `target`")
    failed = collab_items(server.since(mark), "item/completed")
    assert [(i["tool"], i["status"], i["agentsStates"]) for i in failed] == [
        ("closeAgent", "failed", {unknown: {"status": "notFound", "message": None}}),
        ("spawnAgent", "failed", {}),
    ]
    # Deferred: nothing of the namespace is listed in the request's tools.
    assert not any("spawn_agent" in json.dumps(t) for t in fake_model.requests[0].body["tools"])


async def test_features_multi_agent_false_turns_the_tools_off(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(agent_call("spawn_agent", {"message": "x"}, "c1")), script.text_reply("done"))
    server = await start_app("-c", "features.multi_agent=false")
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    mark = server.mark()
    await server.request(
        "turn/start", {"threadId": thread["thread"]["id"], "input": [{"type": "text", "text": "go"}]}
    )
    await server.notification("turn/completed", after=mark)
    assert outputs(fake_model)["c1"] == "unsupported call: multi_agent_v1spawn_agent"


async def test_limits_six_open_agents_and_a_child_cannot_spawn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    spawns = [agent_call("spawn_agent", {"message": f"{CHILD_TASK} {n}"}, f"s{n}") for n in range(8)]
    fake_model.add(script.reply(*spawns), script.text_reply("done"))
    fake_model.add_for(
        is_child,
        script.reply(agent_call("spawn_agent", {"message": "grandchild"}, "from_child")),
        *[script.text_reply(f"child {n}") for n in range(6)],
    )
    server = await start_app()
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    parent = thread["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": parent, "input": [{"type": "text", "text": "go"}]})
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    items = collab_items(server.since(mark), "item/completed")
    agents = [i["receiverThreadIds"][0] for i in items if i["status"] == "completed"]
    for agent in agents:
        await server.wait_for(functools.partial(_turn_completed_on, thread_id=agent), after=mark)
    out = outputs(fake_model)
    # Codex's default `agents.max_threads` is 6; its words for the seventh.
    assert [json.loads(out[f"s{n}"])["agent_id"] for n in range(6)] == agents
    assert [out[f"s{n}"] for n in range(6, 8)] == ["collab spawn failed: agent thread limit reached"] * 2
    assert [(i["status"], i["receiverThreadIds"], i["agentsStates"]) for i in items[6:]] == [
        ("failed", [], {})
    ] * 2
    # max_depth 1 (Codex's default): the child's own spawn is not a tool it has.
    assert out["from_child"] == "unsupported call: multi_agent_v1spawn_agent"


async def test_a_wait_times_out_then_send_input_starts_the_childs_next_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    waited, sent, waited_again = later("w1"), later("si"), later("w2")
    fake_model.add(
        script.reply(agent_call("spawn_agent", {"message": CHILD_TASK}, "call_spawn")),
        waited,
        sent,
        waited_again,
        script.text_reply("parent done"),
    )
    fake_model.add_for(
        is_child,
        script.reply(script.gated("hold"), script.message("child first")),
        script.text_reply("second answer"),
    )
    server = await start_app()
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    parent = thread["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": parent, "input": [{"type": "text", "text": "go"}]})
    spawned = await server.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "collabAgentToolCall"
    )
    agent = spawned["params"]["item"]["receiverThreadIds"][0]
    # Clamped to Codex's shortest wait (10 s); the child is held until it has passed.
    fill(waited, agent_call("wait_agent", {"targets": [agent], "timeout_ms": 1}, "call_wait1"))
    fake_model.release("w1")
    timed_out = await server.notification(
        "item/completed", after=mark, within_s=30, where=lambda p: p["item"]["id"] == "call_wait1"
    )
    assert timed_out["params"]["item"]["receiverThreadIds"] == []
    assert timed_out["params"]["item"]["agentsStates"] == {}
    fake_model.release("hold")
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == agent)
    fill(sent, agent_call("send_input", {"target": agent, "message": "CHILD-TASK again"}, "call_send"))
    fake_model.release("si")
    fill(waited_again, agent_call("wait_agent", {"targets": [agent]}, "call_wait2"))
    fake_model.release("w2")
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    out = outputs(fake_model)
    assert json.loads(out["call_wait1"]) == {"status": {}, "timed_out": True}
    assert set(json.loads(out["call_send"])) == {"submission_id"}
    assert json.loads(out["call_wait2"])["status"] == {agent: {"completed": "second answer"}}
    send = next(i for i in collab_items(server.since(mark), "item/completed") if i["id"] == "call_send")
    assert (send["tool"], send["prompt"]) == ("sendInput", "CHILD-TASK again")
    assert send["agentsStates"] == {agent: {"status": "completed", "message": "child first"}}


async def test_a_closed_agent_is_not_found_until_resume_agent_opens_it_again(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    closing, resuming, waiting = later("close"), later("resume"), later("wait")
    fake_model.add(
        script.reply(agent_call("spawn_agent", {"message": CHILD_TASK}, "call_spawn")),
        closing,
        resuming,
        waiting,
        script.text_reply("parent done"),
    )
    fake_model.add_for(is_child, script.text_reply("child first"), script.text_reply("child second"))
    server = await start_app()
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    parent = thread["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": parent, "input": [{"type": "text", "text": "go"}]})
    spawned = await server.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "collabAgentToolCall"
    )
    agent = spawned["params"]["item"]["receiverThreadIds"][0]
    fill(
        closing,
        agent_call("wait_agent", {"targets": [agent]}, "call_wait"),
        agent_call("close_agent", {"target": agent}, "call_close"),
        agent_call("send_input", {"target": agent, "message": "closed?"}, "call_send_closed"),
    )
    fake_model.release("close")
    fill(
        resuming,
        agent_call("resume_agent", {"id": agent}, "call_resume"),
        agent_call("resume_agent", {"id": agent}, "call_resume_again"),
        agent_call("send_input", {"target": agent, "message": "CHILD-TASK two"}, "call_send"),
    )
    fake_model.release("resume")
    fill(waiting, agent_call("wait_agent", {"targets": [agent]}, "call_wait2"))
    fake_model.release("wait")
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    out = outputs(fake_model)
    assert out["call_send_closed"] == f"agent with id {agent} not found"
    assert (
        json.loads(out["call_resume"]) == json.loads(out["call_resume_again"]) == {"status": "pending_init"}
    )
    assert json.loads(out["call_wait2"])["status"] == {agent: {"completed": "child second"}}
    done = {i["id"]: i for i in collab_items(server.since(mark), "item/completed")}
    assert (done["call_send_closed"]["status"], done["call_send_closed"]["agentsStates"]) == (
        "failed",
        {agent: {"status": "notFound", "message": None}},
    )
    assert (
        done["call_resume"]["tool"],
        done["call_resume"]["status"],
        done["call_resume"]["agentsStates"],
    ) == (
        "resumeAgent",
        "completed",
        {agent: {"status": "pendingInit", "message": None}},
    )


async def test_interrupting_the_parent_while_it_waits_leaves_the_child_running(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    waiting = later("wait")
    fake_model.add(script.reply(agent_call("spawn_agent", {"message": CHILD_TASK}, "call_spawn")), waiting)
    fake_model.add_for(is_child, script.reply(script.gated("hold"), script.message("child late")))
    server = await start_app()
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    parent = thread["thread"]["id"]
    mark = server.mark()
    turn = await server.request("turn/start", {"threadId": parent, "input": [{"type": "text", "text": "go"}]})
    spawned = await server.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "collabAgentToolCall"
    )
    agent = spawned["params"]["item"]["receiverThreadIds"][0]
    fill(waiting, agent_call("wait_agent", {"targets": [agent], "timeout_ms": 60000}, "call_wait"))
    fake_model.release("wait")
    await server.notification("item/started", after=mark, where=lambda p: p["item"]["id"] == "call_wait")
    await server.request("turn/interrupt", {"threadId": parent, "turnId": turn["turn"]["id"]})
    done = await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    assert done["params"]["turn"]["status"] == "interrupted"
    # As on Codex: the wait never completes, and the child goes on to the end of its turn.
    fake_model.release("hold")
    child = await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == agent)
    assert child["params"]["turn"]["status"] == "completed"
    assert not [i for i in collab_items(server.since(mark), "item/completed") if i["id"] == "call_wait"]


async def test_a_child_is_still_the_parents_after_a_restart(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    home = tmp_path / "home"
    server, parent, agent, mark = await _spawn_then_wait(
        start_app, fake_model, workdir, script.text_reply("child final answer")
    )
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    nickname = (await server.request("thread/read", {"threadId": agent}))["thread"]["agentNickname"]
    assert await server.close() == 0

    again = await start_app(home=home)
    child = (await again.request("thread/read", {"threadId": agent}))["thread"]
    assert (child["parentThreadId"], child["agentNickname"], child["threadSource"]) == (
        parent,
        nickname,
        "subagent",
    )
    assert child["source"]["subAgent"]["thread_spawn"]["depth"] == 1
    listed = await again.request("thread/list", {"sourceKinds": ["subAgent"]})
    assert [t["id"] for t in listed["data"]] == [agent]
    assert [t["id"] for t in (await again.request("thread/list", {}))["data"]] == [parent]


async def test_send_input_reloads_a_child_unloaded_for_want_of_clients(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    sending = later("send")
    fake_model.add(
        script.reply(agent_call("spawn_agent", {"message": CHILD_TASK}, "call_spawn")),
        sending,
        script.text_reply("parent done"),
    )
    fake_model.add_for(is_child, script.text_reply("child first"), script.text_reply("child second"))
    server = await start_app("-c", "thread_unload_delay_secs=0")
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    parent = thread["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": parent, "input": [{"type": "text", "text": "go"}]})
    spawned = await server.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "collabAgentToolCall"
    )
    agent = spawned["params"]["item"]["receiverThreadIds"][0]
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == agent)
    await server.request("thread/unsubscribe", {"threadId": agent})
    await server.notification("thread/closed", after=mark, where=lambda p: p["threadId"] == agent)
    reloaded = server.mark()
    fill(
        sending,
        agent_call("send_input", {"target": agent, "message": "CHILD-TASK two"}, "call_send"),
        agent_call("wait_agent", {"targets": [agent]}, "call_wait"),
    )
    fake_model.release("send")
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    assert json.loads(outputs(fake_model)["call_wait"])["status"] == {agent: {"completed": "child second"}}
    # Loaded again, its events reach the parent's client again.
    await server.notification("turn/completed", after=reloaded, where=lambda p: p["threadId"] == agent)


def search_call(query: str, call_id: str) -> OutputItem:
    """A client-run `tool_search_call`, as the Responses API sends it."""
    done = {
        "type": "tool_search_call",
        "id": f"ts_{call_id}",
        "call_id": call_id,
        "status": "completed",
        "execution": "client",
        "arguments": {"query": query},
    }
    return OutputItem({**done, "status": "in_progress"}, done, [])


def found_namespaces(fake: FakeResponsesServer, call_id: str) -> list[dict[str, Any]]:
    return next(
        entry["tools"]
        for entry in fake.requests[-1].body["input"]
        if entry.get("type") == "tool_search_output" and entry["call_id"] == call_id
    )


async def test_tool_search_finds_the_multi_agent_namespace_only_when_the_feature_is_on(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(search_call("spawn agent wait close send input", "s1")), script.text_reply("done")
    )
    server = await start_app()
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    mark = server.mark()
    await server.request(
        "turn/start", {"threadId": thread["thread"]["id"], "input": [{"type": "text", "text": "go"}]}
    )
    await server.notification("turn/completed", after=mark)
    (namespace,) = found_namespaces(fake_model, "s1")
    assert namespace["type"] == "namespace" and namespace["name"] == "multi_agent_v1"
    tools = {tool["name"]: tool for tool in namespace["tools"]}
    assert set(tools) == {"spawn_agent", "send_input", "wait_agent", "resume_agent", "close_agent"}
    # Codex's parameter names, types and required lists.
    assert tools["wait_agent"]["parameters"]["required"] == ["targets"]
    assert tools["wait_agent"]["parameters"]["properties"]["targets"]["type"] == "array"
    assert "required" not in tools["spawn_agent"]["parameters"]
    assert tools["close_agent"]["parameters"]["required"] == ["target"]
    assert all(tool["defer_loading"] is True and tool["strict"] is False for tool in tools.values())

    off = await start_app("-c", "features.multi_agent=false", home=workdir.parent / "home-off")
    fake_model.add(script.reply(search_call("spawn agent", "s2")), script.text_reply("done"))
    thread = await off.request("thread/start", {"cwd": str(workdir)})
    mark = off.mark()
    await off.request(
        "turn/start", {"threadId": thread["thread"]["id"], "input": [{"type": "text", "text": "go"}]}
    )
    await off.notification("turn/completed", after=mark)
    assert found_namespaces(fake_model, "s2") == []
