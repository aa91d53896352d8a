"""The provider's hosted web search: the tool offered per config, its calls shown as webSearch items."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def _run_turn(start_server: StartServer, workdir: Path, *config: str) -> tuple[Any, int]:
    server = await start_server(*config)
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    mark = server.mark()
    params = {"threadId": thread["thread"]["id"], "input": [{"type": "text", "text": "look it up"}]}
    await server.request("turn/start", params)
    await server.notification("turn/completed", after=mark)
    return server, mark


_TYPES = {"search_content_types": ["text", "image"]}


@pytest.mark.parametrize(
    ("config", "tool"),
    [
        # As Codex 0.169.0 sends them to gpt-5.5 (observed on the binary).
        (('web_search="live"',), {"type": "web_search", "external_web_access": True, **_TYPES}),
        (('web_search="cached"',), {"type": "web_search", "external_web_access": False, **_TYPES}),
        (
            ('web_search="indexed"',),
            {"type": "web_search", "external_web_access": True, "indexed_web_access": True, **_TYPES},
        ),
        (("tools.web_search=true",), {"type": "web_search", "external_web_access": True, **_TYPES}),
        (('web_search="disabled"', "tools.web_search=true"), None),
        ((), None),
    ],
)
async def test_the_hosted_tool_is_offered_as_configured(
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    config: tuple[str, ...],
    tool: dict[str, Any] | None,
) -> None:
    fake_model.add(script.text_reply("nothing to search"))
    args = [a for c in config for a in ("-c", c)]
    await _run_turn(start_server, workdir, *args)
    hosted = [t for t in fake_model.requests[0].body["tools"] if t["type"] == "web_search"]
    assert hosted == ([tool] if tool else [])
    # The built-in tools keep their places ahead of it, so the prefix stays cacheable.
    assert fake_model.requests[0].body["tools"][0]["name"] == "exec_command"


async def test_searches_become_web_search_items_and_stay_in_the_history(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(
            script.web_search_call("tether mcp sdk", item_id="ws_1"),
            script.web_search_call(
                action={"type": "find_in_page", "url": "https://example.com/doc", "pattern": "stdio"},
                item_id="ws_2",
            ),
            script.message("Found it."),
        ),
        script.text_reply("second turn"),
    )
    server, mark = await _run_turn(start_server, workdir, "-c", 'web_search="live"')
    started = [
        m["params"]["item"]
        for m in server.since(mark)
        if m.get("method") == "item/started" and m["params"]["item"]["type"] == "webSearch"
    ]
    completed = [
        m["params"]["item"]
        for m in server.since(mark)
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "webSearch"
    ]
    # Each search is its own item (ids are the thread's, not the model's ws_1/ws_2).
    assert [i["id"] for i in completed] == [i["id"] for i in started]
    assert len({i["id"] for i in started}) == 2
    assert completed[0]["query"] == "tether mcp sdk"
    assert completed[0]["action"] == {
        "type": "search",
        "query": "tether mcp sdk",
        "queries": ["tether mcp sdk"],
    }
    assert completed[1]["action"] == {
        "type": "findInPage",
        "url": "https://example.com/doc",
        "pattern": "stdio",
    }
    assert completed[1]["query"] == "'stdio' in https://example.com/doc"

    # Hosted calls are not Tether's to run: no follow-up request, and the next turn's history
    # carries them back as the provider returned them.
    assert len(fake_model.requests) == 1
    thread_id = (await server.request("thread/loaded/list", {}))["data"][0]
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "again"}]})
    await server.notification("turn/completed", after=mark)
    history = fake_model.requests[1].body["input"]
    searches = [i for i in history if i["type"] == "web_search_call"]
    assert [s["action"]["type"] for s in searches] == ["search", "find_in_page"]

    read = await server.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    kept = [i for i in read["thread"]["turns"][0]["items"] if i["type"] == "webSearch"]
    assert [i["query"] for i in kept] == ["tether mcp sdk", "'stdio' in https://example.com/doc"]
