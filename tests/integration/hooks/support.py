"""What the hook tests share: a hook script that keeps its stdin, configuring and trusting it as a
client does (`config/batchWrite`), and running one turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.rpcclient import RpcClient
from tether_testing.fake_responses import FakeResponsesServer


def hook_script(folder: Path, body: str) -> Path:
    """An executable hook that keeps its stdin in `stdin.json` beside it, then runs `body`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hook.sh"
    path.write_text(f'#!/bin/sh\ncat > "{folder}/stdin.json"\n{body}\n')
    path.chmod(0o755)
    return path


async def configure(
    server: RpcClient, event: str, command: str, seconds: int = 10, matcher: str = "Bash"
) -> dict[str, Any]:
    handler = {"type": "command", "command": command, "timeout": seconds, "statusMessage": "checking"}
    group: dict[str, Any] = {"hooks": [handler]}
    if "ToolUse" in event:
        group["matcher"] = matcher
    # Only this event's table: the trust recorded in `hooks.state` stays.
    edit = {"keyPath": f"hooks.{event}", "value": [group], "mergeStrategy": "replace"}
    await server.request("config/batchWrite", {"edits": [edit]})
    (entry,) = (await server.request("hooks/list", {"cwds": []}))["data"]
    (hook,) = [h for h in entry["hooks"] if h["eventName"] == event[:1].lower() + event[1:]]
    return dict(hook)


async def trust(server: RpcClient, hook: dict[str, Any]) -> None:
    state = {hook["key"]: {"trusted_hash": hook["currentHash"]}}
    edit = {"keyPath": "hooks.state", "value": state, "mergeStrategy": "upsert"}
    await server.request("config/batchWrite", {"edits": [edit]})


async def run_turn(
    server: RpcClient, workdir: Path, text: str, thread_id: str | None = None, approval: str = "never"
) -> tuple[str, int]:
    if thread_id is None:
        started = await server.request(
            "thread/start", {"cwd": str(workdir), "sandbox": "workspace-write", "approvalPolicy": approval}
        )
        thread_id = str(started["thread"]["id"])
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    done = await server.notification("turn/completed", after=mark)
    turn = done["params"]["turn"]
    assert turn["status"] == "completed", turn
    return thread_id, mark


def hook_messages(server: RpcClient, mark: int) -> list[dict[str, Any]]:
    return [m for m in server.since(mark) if str(m.get("method", "")).startswith("hook/")]


def function_outputs(fake: FakeResponsesServer) -> dict[str, Any]:
    return {
        i["call_id"]: i["output"]
        for r in fake.requests
        for i in r.body["input"]
        if i.get("type") == "function_call_output"
    }
