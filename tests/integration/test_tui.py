"""The TUI driven headlessly (Textual's Pilot) against a real `tether app-server` and the fake model."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.support.appserver import WAIT_S, mock_provider_args
from tests.support.wsclient import SocketServer
from tether_client import Client, ServerRequest, accept_all
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer
from tether_tui.app import TetherApp
from tether_tui.screens.approval import ApprovalScreen
from tether_tui.screens.thread_list import ThreadListScreen
from tether_tui.screens.thread_view import ThreadViewScreen

ESCALATED = {
    "cmd": "echo approved > out.txt",
    "yield_time_ms": 1000,
    "sandbox_permissions": "require_escalated",
    "justification": "Write out.txt?",
}


async def _spawn(fake: FakeResponsesServer, home: Path) -> Client:
    home.mkdir(exist_ok=True)
    command = [sys.executable, "-m", "tether_server", "app-server", *mock_provider_args(fake.base_url)]
    return await Client.spawn(command, cwd=home, env={"TETHER_HOME": str(home)})


@asynccontextmanager
async def _tui(client: Client, workdir: Path) -> AsyncIterator[tuple[TetherApp, Pilot[None]]]:
    try:
        app = TetherApp(client, cwd=str(workdir))
        async with app.run_test(size=(110, 40)) as pilot:
            yield app, pilot
    finally:
        await client.close()


async def _until(pilot: Pilot[None], condition: Callable[[], object], what: str) -> None:
    """Let the app run until `condition` holds; fail after WAIT_S."""
    try:
        async with asyncio.timeout(WAIT_S):
            while not condition():
                await pilot.pause(0.01)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


async def _list(app: TetherApp, pilot: Pilot[None]) -> ThreadListScreen:
    await _until(pilot, lambda: isinstance(app.screen, ThreadListScreen) and app.screen.loaded, "the list")
    assert isinstance(app.screen, ThreadListScreen)
    return app.screen


async def _new_thread(app: TetherApp, pilot: Pilot[None]) -> ThreadViewScreen:
    await _list(app, pilot)
    await pilot.press("ctrl+n")
    await _until(pilot, lambda: isinstance(app.screen, ThreadViewScreen) and app.screen.ready, "a thread")
    assert isinstance(app.screen, ThreadViewScreen)
    return app.screen


async def _prompt(app: TetherApp, pilot: Pilot[None]) -> ApprovalScreen:
    def shown() -> bool:
        return isinstance(app.screen, ApprovalScreen) and bool(app.screen.query("#details"))

    await _until(pilot, shown, "the approval prompt")
    assert isinstance(app.screen, ApprovalScreen)
    return app.screen


async def _say(view: ThreadViewScreen, pilot: Pilot[None], text: str) -> None:
    view.query_one("#prompt", Input).value = text
    await pilot.press("enter")


def _gate_mid_message(response: dict[str, Any], gate: str) -> dict[str, Any]:
    """`response` with its stream paused after the first text delta."""
    steps = response["steps"]
    first = next(
        i for i, s in enumerate(steps) if s.get("event", {}).get("type") == "response.output_text.delta"
    )
    steps.insert(first + 1, script.gated(gate))
    return response


async def test_a_prompt_in_a_new_thread_streams_the_reply_into_the_transcript(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(_gate_mid_message(script.text_reply("Hello from the model.", deltas=2), "mid"))
    async with _tui(await _spawn(fake_model, tmp_path / "home"), workdir) as (app, pilot):
        view = await _new_thread(app, pilot)
        await _say(view, pilot, "Say hello")
        await _until(pilot, lambda: "Hello from" in view.transcript_text(), "the first delta")
        assert "Hello from the model." not in view.transcript_text()
        assert view.active_turn_id is not None
        fake_model.release("mid")
        await _until(pilot, lambda: view.last_turn_status == "completed", "the turn to complete")
        text = view.transcript_text()
    assert "> Say hello" in text
    assert "Hello from the model." in text
    assert fake_model.requests[0].body["input"][-1]["content"][0]["text"] == "Say hello"


async def test_enter_while_a_turn_runs_steers_the_input_into_that_turn(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.gated("first"), script.message("Working on it.")),
        script.text_reply("Did both."),
    )
    async with _tui(await _spawn(fake_model, tmp_path / "home"), workdir) as (app, pilot):
        view = await _new_thread(app, pilot)
        await _say(view, pilot, "do a")
        await fake_model.wait_for_gate("first", within_s=WAIT_S)
        await _until(pilot, lambda: view.active_turn_id is not None, "the turn to start")
        await _say(view, pilot, "also do b")
        # A steer cuts in: the held response is abandoned and the next request carries the input.
        await _until(pilot, lambda: view.last_turn_status == "completed", "the turn to complete")
        assert view.active_turn_id is None and view.steered == []
        text = view.transcript_text()
        fake_model.release("first")
    assert text.index("> do a") < text.index("> also do b") < text.index("Did both.")
    assert len(fake_model.requests) == 2
    assert fake_model.requests[1].body["input"][-1]["content"][0]["text"] == "also do b"


async def test_escape_interrupts_the_running_turn(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(_gate_mid_message(script.text_reply("Never finished.", deltas=2), "never"))
    async with _tui(await _spawn(fake_model, tmp_path / "home"), workdir) as (app, pilot):
        view = await _new_thread(app, pilot)
        await _say(view, pilot, "Take your time")
        await _until(pilot, lambda: "Never" in view.transcript_text(), "the first delta")
        await pilot.press("escape")
        await _until(pilot, lambda: view.last_turn_status is not None, "the turn to end")
        assert view.last_turn_status == "interrupted"
        assert view.active_turn_id is None


async def test_accepting_an_escalated_command_in_the_modal_lets_the_turn_finish(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "call_1")),
        script.text_reply("Wrote it."),
    )
    async with _tui(await _spawn(fake_model, tmp_path / "home"), workdir) as (app, pilot):
        view = await _new_thread(app, pilot)
        await _say(view, pilot, "Write the file")
        await _prompt(app, pilot)
        assert "Run this command?" in str(app.screen.query_one("#question").render())
        await pilot.press("y")
        await _until(pilot, lambda: view.last_turn_status == "completed", "the turn to complete")
        text = view.transcript_text()
    assert "echo approved > out.txt" in text
    assert "completed (exit 0)" in text
    assert "Wrote it." in text
    assert (workdir / "out.txt").read_text() == "approved\n"


async def test_a_patch_prompt_shows_the_diff_and_declining_it_writes_nothing(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    patch = "*** Begin Patch\n*** Add File: new.txt\n+fresh content\n*** End Patch\n"
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", patch, "p1")), script.text_reply("Skipped.")
    )
    async with _tui(await _spawn(fake_model, tmp_path / "home"), workdir) as (app, pilot):
        view = await _new_thread(app, pilot)
        await _say(view, pilot, "Add the file")
        prompt = await _prompt(app, pilot)
        assert "Apply these changes?" in str(prompt.query_one("#question").render())
        assert "+fresh content" in str(prompt.query_one("#details", Static).render())
        await pilot.press("n")
        await _until(pilot, lambda: view.last_turn_status == "completed", "the turn to complete")
        text = view.transcript_text()
    assert "(declined)" in text and "Skipped." in text
    assert not (workdir / "new.txt").exists()


async def test_the_thread_list_shows_the_thread_after_a_turn_and_resuming_it_shows_its_history(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(script.text_reply("First answer."))
    async with _tui(await _spawn(fake_model, tmp_path / "home"), workdir) as (app, pilot):
        view = await _new_thread(app, pilot)
        await _say(view, pilot, "First question")
        await _until(pilot, lambda: view.last_turn_status == "completed", "the turn to complete")
        thread_id = view.thread_id
        await pilot.press("ctrl+t")
        listing = await _list(app, pilot)
        assert [t["id"] for t in listing.threads] == [thread_id]
        await pilot.press("down", "down", "enter")  # into the list, then the row below "+ New thread"
        await _until(pilot, lambda: isinstance(app.screen, ThreadViewScreen) and app.screen.ready, "resume")
        resumed = app.screen
        assert isinstance(resumed, ThreadViewScreen) and resumed is not view
        text = resumed.transcript_text()
    assert resumed.thread_id == thread_id
    assert "> First question" in text and "First answer." in text


async def test_a_prompt_answered_by_another_client_closes_when_the_server_says_it_is_resolved(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "call_1")), script.text_reply("Done.")
    )
    server = await SocketServer.start(
        tmp_path / "home", [*mock_provider_args(fake_model.base_url), "--listen", "unix://"]
    )
    try:
        address = f"unix://{server.unix_path}"
        async with _tui(await Client.connect(address), workdir) as (app, pilot):
            view = await _new_thread(app, pilot)
            await _say(view, pilot, "Write the file")
            await _prompt(app, pilot)
            asked: list[ServerRequest] = []

            async def accept(request: ServerRequest) -> dict[str, str] | None:
                asked.append(request)
                return await accept_all(request)

            async with await Client.connect(address, approval_handler=accept) as other:
                # Resuming replays the pending request to the newcomer, which accepts it first.
                await other.request_raw("thread/resume", {"threadId": view.thread_id, "excludeTurns": True})
                await _until(pilot, lambda: view.last_turn_status == "completed", "the turn to complete")
            assert not isinstance(app.screen, ApprovalScreen)
            assert app.approval is None
            assert [r.method for r in asked] == ["item/commandExecution/requestApproval"]
            assert "Done." in view.transcript_text()
    finally:
        await server.stop()
