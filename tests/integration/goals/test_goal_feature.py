"""`features.goals = false`, as Codex 0.169.0 behaves with it (observed on the binary): every
`thread/goal/*` method answers -32600 `goals feature is disabled` (before any check of the thread
id), and the model is offered no goal tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

DISABLED = (-32600, "goals feature is disabled")
UNKNOWN = "01a23344-e248-71f1-a457-80b4d3dfc659"


@pytest.mark.parametrize(
    ("method", "extra"),
    [("thread/goal/set", {"objective": "x"}), ("thread/goal/get", {}), ("thread/goal/clear", {})],
)
async def test_every_goal_method_is_refused_when_the_feature_is_off(
    start_app: StartApp, workdir: Path, method: str, extra: dict[str, str]
) -> None:
    server = await start_app("-c", "features.goals=false")
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    for thread_id in (tid, UNKNOWN, "not-a-uuid"):
        with pytest.raises(RpcErrorReply) as caught:
            await server.request(method, {"threadId": thread_id, **extra})
        assert (caught.value.code, caught.value.message) == DISABLED


@pytest.mark.parametrize(("flags", "offered"), [(("-c", "features.goals=false"), False), ((), True)])
async def test_the_model_gets_the_goal_tools_only_with_the_feature_on(
    start_app: StartApp,
    workdir: Path,
    fake_model: FakeResponsesServer,
    flags: tuple[str, ...],
    offered: bool,
) -> None:
    fake_model.add(script.text_reply("ok"))
    server = await start_app(*flags)
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)
    names = {t.get("name") for t in fake_model.requests[0].body["tools"]}
    if offered:
        assert {"get_goal", "create_goal", "update_goal"} <= names
    else:
        assert not names & {"get_goal", "create_goal", "update_goal"}
