"""`tether mcp-server` driven by the `mcp` SDK's own client over stdio: a two-turn conversation."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.support.appserver import mock_provider_args
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_an_agent_delegates_a_thread_and_continues_it(
    fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(script.text_reply("The answer is 42."), script.text_reply("Still 42, as I said."))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tether_server", "mcp-server", *mock_provider_args(fake_model.base_url)],
        env={"TETHER_HOME": str(tmp_path / "home")},
        cwd=str(workdir),
    )
    with (tmp_path / "mcp-server.stderr").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            assert init.server_info.name == "tether"
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == {"tether", "tether-reply"}
            assert {"prompt", "cwd", "sandbox", "approval_policy"} <= set(
                tools["tether"].input_schema["properties"]
            )

            first = await session.call_tool(
                "tether", {"prompt": "What is the answer?", "cwd": str(workdir), "sandbox": "read-only"}
            )
            assert not first.is_error
            reply = first.structured_content
            assert reply is not None and reply["content"] == "The answer is 42."
            assert reply["status"] == "completed"
            thread_id = reply["threadId"]

            second = await session.call_tool(
                "tether-reply", {"threadId": thread_id, "prompt": "Are you sure?"}
            )
            assert second.structured_content == {
                "threadId": thread_id,
                "content": "Still 42, as I said.",
                "status": "completed",
            }

    # One thread: the second request carried the first exchange, with the policy the caller chose.
    assert len(fake_model.requests) == 2
    texts = [
        part.get("text", "")
        for item in fake_model.requests[1].body["input"]
        for part in item.get("content") or []
        if isinstance(part, dict)
    ]
    assert "What is the answer?" in texts and "The answer is 42." in texts and "Are you sure?" in texts
    assert fake_model.requests[0].headers.get("session_id") == thread_id
