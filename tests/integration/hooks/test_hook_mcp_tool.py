"""`mcp_tool` hooks, as Codex 0.169.0 runs them (observed with the MCP fixture server): a handler
`{type = "mcp_tool", server, tool, input}` calls that tool of a configured MCP server with its own
`input`, and the tool's text answer is read as a command hook's stdout. hooks/list shows it with
`handlerType: "mcpTool"`, `server` and `tool` (no `command`); like a command hook it runs only
once trusted. An unknown server fails the run (`unknown MCP server '<name>'`), so does a tool that
answers with an error (`MCP tool returned an error: <text>`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.integration.hooks.support import function_outputs, hook_messages, run_turn, trust
from tests.integration.tools_ext.mcp_support import stdio_server
from tests.support import schema
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

BLOCK = json.dumps({"decision": "block", "reason": "no way"})


async def configure_mcp(
    server: RpcClient, event: str, handlers: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    group: dict[str, Any] = {"hooks": [{"type": "mcp_tool", **h} for h in handlers]}
    if "ToolUse" in event:
        group["matcher"] = "Bash"
    edit = {"keyPath": f"hooks.{event}", "value": [group], "mergeStrategy": "replace"}
    await server.request("config/batchWrite", {"edits": [edit]})
    listed = await server.request("hooks/list", {"cwds": []})
    assert schema.response_errors("hooks/list", listed) == []
    (entry,) = listed["data"]
    assert entry["warnings"] == [] and entry["errors"] == [], entry
    name = event[:1].lower() + event[1:]
    return [h for h in entry["hooks"] if h["eventName"] == name]


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


async def test_an_mcp_tool_hook_is_listed_runs_once_trusted_and_its_answer_blocks_a_command(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    for _ in range(2):
        fake_model.add(
            script.reply(script.function_call("exec_command", {"cmd": "touch marker"}, "call_1")),
            script.text_reply("understood"),
        )
    log = tmp_path / "calls.log"
    server = await start_app(*stdio_server("fixture", "--echo", "--log", str(log)))
    handler = {"server": "fixture", "tool": "echo", "input": {"text": BLOCK}, "statusMessage": "asking"}
    (hook,) = await configure_mcp(server, "PreToolUse", [handler])
    assert {k: hook[k] for k in ("handlerType", "server", "tool", "trustStatus", "statusMessage")} == {
        "handlerType": "mcpTool",
        "server": "fixture",
        "tool": "echo",
        "trustStatus": "untrusted",
        "statusMessage": "asking",
    }
    assert "command" not in hook and "async" not in hook

    # Untrusted: not called, the command runs.
    _, mark = await run_turn(server, workdir, "make a marker")
    assert (workdir / "marker").exists() and hook_messages(server, mark) == []
    assert calls(log) == []

    (workdir / "marker").unlink()
    await trust(server, hook)
    _, mark = await run_turn(server, workdir, "make a marker")
    assert not (workdir / "marker").exists()
    assert calls(log) == [f"echo {BLOCK}"]
    assert (
        function_outputs(fake_model)["call_1"]
        == "Command blocked by PreToolUse hook: no way. Command: touch marker"
    )
    started, completed = hook_messages(server, mark)
    run = completed["params"]["run"]
    assert started["params"]["run"]["handlerType"] == "mcpTool"
    assert (run["handlerType"], run["status"], run["statusMessage"], run["entries"]) == (
        "mcpTool",
        "blocked",
        "asking",
        [{"kind": "feedback", "text": "no way"}],
    )
    assert run["id"] == f"pre-tool-use:0:{hook['sourcePath']}:call_1"
    assert schema.notification_errors(started) == [] and schema.notification_errors(completed) == []


async def test_mcp_tool_hooks_give_context_and_fail_on_an_unknown_server_or_a_tool_error(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(script.text_reply("noted"))
    log = tmp_path / "calls.log"
    server = await start_app(*stdio_server("fixture", "--echo", "--log", str(log)))
    hooks = await configure_mcp(
        server,
        "UserPromptSubmit",
        [
            {"server": "fixture", "tool": "echo", "input": {"text": "plain context words"}},
            {"server": "nosuch", "tool": "echo", "input": {"text": "x"}},
            {"server": "fixture", "tool": "wipe", "input": {"nope": 1}},
        ],
    )
    for hook in hooks:
        await trust(server, hook)
    _, mark = await run_turn(server, workdir, "hello")

    runs = {
        m["params"]["run"]["displayOrder"]: m["params"]["run"]
        for m in hook_messages(server, mark)
        if m["method"] == "hook/completed"
    }
    context, unknown, refused = (runs[h["displayOrder"]] for h in hooks)
    assert (context["status"], context["entries"]) == (
        "completed",
        [{"kind": "context", "text": "plain context words"}],
    )
    assert (unknown["status"], unknown["entries"]) == (
        "failed",
        [{"kind": "error", "text": "unknown MCP server 'nosuch'"}],
    )
    assert refused["status"] == "failed"
    (entry,) = refused["entries"]
    assert entry["kind"] == "error" and entry["text"].startswith("MCP tool returned an error: ")
    assert "wipe" in entry["text"]
    messages = [
        (i["role"], i["content"][0]["text"])
        for i in fake_model.requests[0].body["input"]
        if i.get("type") == "message"
    ]
    assert messages[-2:] == [("user", "hello"), ("developer", "plain context words")]
