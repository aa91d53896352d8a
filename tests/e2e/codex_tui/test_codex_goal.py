"""The Codex TUI's `/goal` (codex-cli 0.169.0) against `tether app-server`: setting a goal starts
goal turns with no user message, the model's `update_goal` ends it, `/goal` shows its state and
`/goal clear` removes it. The answers behind it are the ones pinned against Codex 0.169.0 in
tests/integration/goals."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.codex_tui.test_codex_remote import (
    COMPOSER,
    _answered,
    _daemon,
    _relay,
    _submit,
    _tui,
    _workdir,
    assert_all_answered,
)
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

USAGE = script.usage(100, 20)  # 120 tokens a response


async def test_goal_set_worked_on_until_complete_shown_and_cleared(tmp_path: Path) -> None:
    work = _workdir(tmp_path)
    replies = [
        script.text_reply("first verse drafted", usage=USAGE),
        script.reply(script.function_call("update_goal", {"status": "complete"}, "c1"), usage=USAGE),
        script.text_reply("haiku written", usage=USAGE),
    ]
    async with (
        FakeResponsesServer(replies) as fake,
        _daemon(tmp_path, fake, "ws://127.0.0.1:0") as server,
        _relay(server.ws_url) as (relay, url),
        _tui(url, work, tmp_path, server.token()) as screen,
    ):
        await screen.wait_for(COMPOSER)
        await _submit(screen, "/goal write a haiku")
        await screen.wait_for("Objective: write a haiku")
        # Two goal turns, no prompt typed for either; the second ends with the goal complete.
        await screen.wait_for("first verse drafted")
        await screen.wait_for("haiku written")
        await screen.wait_for("Goal achieved")
        assert fake.remaining == 0

        await _submit(screen, "/goal")
        shown = await screen.wait_for("Status: complete")
        assert "Objective: write a haiku" in shown and "Tokens used: 240" in shown

        await _submit(screen, "/goal clear")
        await _answered(relay, "thread/goal/clear")
    exchanges = relay.exchanges()
    sets = [params["params"] for method, params, _ in exchanges if method == "thread/goal/set"]
    assert [(p["objective"], p["status"], p["origin"]) for p in sets] == [("write a haiku", "active", "user")]
    cleared = [answer for method, _, answer in exchanges if method == "thread/goal/clear"]
    assert cleared and cleared[0] is not None and cleared[0]["result"] == {"cleared": True}
    assert_all_answered(exchanges)
