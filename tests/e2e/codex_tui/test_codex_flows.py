"""The Codex TUI's working flows against `tether app-server`: trust, approvals, patches, review, Esc.

The TUI is started in a git repository with `-C`, so that its threads run there (a remote TUI
sends no working directory otherwise) and its folder-trust prompt comes first. Each flow asserts
on what the pane shows and on what the daemon leaves on disk.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.codex_tui.model import TuiFakeModel
from tests.e2e.codex_tui.relay import Relay
from tests.e2e.codex_tui.screen import Screen
from tests.e2e.codex_tui.test_codex_remote import (
    COMPOSER,
    _daemon,
    _relay,
    _submit,
    _tui,
    assert_all_answered,
)
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

ESCALATED = {
    "cmd": "echo approved > out.txt && cat out.txt",
    "sandbox_permissions": "require_escalated",
    "justification": "Write out.txt in the project?",
}
RAN = "Wrote out.txt."
PATCH = "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+patched by the model\n*** End Patch\n"
PATCHED = "The notes are in place."
STORY = "Once upon a time a daemon served a terminal.\n\nAnd it never finished this story."
STREAMED = script.split_text(STORY, 2)[0]  # what is on screen when the stream stops at the gate


def _gated_story() -> dict[str, Any]:
    """A streamed answer that stops halfway until the test releases gate `story`."""
    answer = script.reply(script.message(STORY, deltas=2))
    steps = answer["steps"]
    first = next(
        i for i, s in enumerate(steps) if s.get("event", {}).get("type") == "response.output_text.delta"
    )
    steps.insert(first + 1, script.gated("story"))
    return answer


FINDING_TITLE = "[P2] notes.md is not linked from anywhere"
FINDING_BODY = "The new notes file is never referenced, so readers will not find it."
EXPLANATION = "The change adds a notes file and an output file."
FINDING = {
    "title": FINDING_TITLE,
    "body": FINDING_BODY,
    "confidence_score": 0.6,
    "priority": 2,
    "code_location": {"absolute_file_path": "notes.md", "line_range": {"start": 1, "end": 2}},
}
REVIEW = {
    "findings": [FINDING],
    "overall_correctness": "patch is correct",
    "overall_explanation": EXPLANATION,
    "overall_confidence_score": 0.7,
}
SCRIPT = [
    script.reply(script.function_call("exec_command", ESCALATED, "call_exec_1")),
    script.text_reply(RAN),
    script.reply(script.custom_tool_call("apply_patch", PATCH, "call_patch_1")),
    script.text_reply(PATCHED),
    script.text_reply(json.dumps(REVIEW)),
    _gated_story(),
]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "dev@example.com")
    _git(repo, "config", "user.name", "Dev")
    (repo / "app.py").write_text("def total(xs):\n    return sum(xs)\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "initial")
    return repo


async def _trust(screen: Screen, home: Path, repo: Path) -> None:
    await screen.wait_for("Trust this folder?")
    await screen.press_until_gone("Enter", "Trust this folder?")
    await screen.wait_for(COMPOSER)
    assert f'[projects."{repo}"]' in (home / "config.toml").read_text()


async def _command_approval(screen: Screen, repo: Path) -> None:
    await _submit(screen, "Write out.txt")
    prompt = await screen.wait_for("Yes, proceed (y)")
    assert "Would you like to run the following command?" in prompt
    assert "Reason: Write out.txt in the project?" in prompt
    assert not (repo / "out.txt").exists()
    screen.keys("y")
    shown = await screen.wait_for(RAN)
    assert "Ran echo approved > out.txt && cat out.txt" in shown
    assert (repo / "out.txt").read_text() == "approved\n"


async def _file_patch(screen: Screen, repo: Path) -> None:
    await _submit(screen, "Add notes.md")
    prompt = await screen.wait_for("Yes, proceed (y)")
    assert "Would you like to make the following edits?" in prompt
    assert "Added notes.md (+2 -0)" in prompt and "2 +patched by the model" in prompt
    assert not (repo / "notes.md").exists()
    screen.keys("y")
    shown = await screen.wait_for(PATCHED)
    assert "Added notes.md (+2 -0)" in shown and "Would you like to make" not in shown
    assert (repo / "notes.md").read_text() == "# Notes\npatched by the model\n"


def _items(home: Path, kind: str) -> list[dict[str, Any]]:
    with sqlite3.connect(home / "tether.sqlite") as db:
        rows = [json.loads(row[0]) for row in db.execute("SELECT item FROM items ORDER BY ordinal")]
    return [item for item in rows if item.get("type") == kind]


def _turn_status(home: Path, prompt: str) -> str:
    """The stored status of the turn the user started with `prompt`."""
    query = (
        "SELECT turns.status FROM turns JOIN items USING (thread_id, turn_id) "
        "WHERE json_extract(items.item, '$.type') = 'userMessage' AND items.item LIKE ?"
    )
    with sqlite3.connect(home / "tether.sqlite") as db:
        [(status,)] = db.execute(query, (f"%{prompt}%",)).fetchall()
    return str(status)


async def _review(screen: Screen, home: Path) -> None:
    await _submit(screen, "/review")
    await screen.wait_for("2. Review uncommitted changes")
    screen.keys("2")
    await screen.wait_for("<< Code review finished >>")
    shown = await screen.wait_for(FINDING_TITLE)
    assert ">> Code review started: current changes <<" in shown
    assert EXPLANATION in shown
    assert f"{FINDING_TITLE} — notes.md:1-2" in shown
    assert FINDING_BODY in shown
    [exited] = _items(home, "exitedReviewMode")
    assert FINDING_TITLE in exited["review"]


async def _interrupt(screen: Screen, home: Path, fake: FakeResponsesServer) -> None:
    await _submit(screen, "Tell me a story")
    await fake.wait_for_gate("story", within_s=30)
    await screen.wait_for(STREAMED)
    screen.keys("Escape")
    shown = await screen.wait_for("Conversation interrupted")
    assert STREAMED in shown and STORY not in shown
    await screen.wait_for(COMPOSER)
    assert _turn_status(home, "Tell me a story") == "interrupted"


async def _flows(screen: Screen, home: Path, repo: Path, fake: FakeResponsesServer) -> None:
    try:
        await _trust(screen, home, repo)
        await _command_approval(screen, repo)
        await _file_patch(screen, repo)
        await _review(screen, home)
        await _interrupt(screen, home, fake)
    finally:
        # SIGTERM lets running turns finish (a drain): none may stay parked at the gate.
        fake.release("story")


async def _settled(relay: Relay, within_s: float = 10.0) -> None:
    """Wait until every request the TUI sent so far has its answer (the last flow's read markers
    are sent after its turn ends, just as the test would close the TUI)."""
    await relay.until(lambda: all(answer is not None for _, _, answer in relay.exchanges()), within_s)


async def test_codex_tui_flows_over_websocket(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    async with (
        TuiFakeModel(SCRIPT) as fake,
        _daemon(tmp_path, fake, "ws://127.0.0.1:0") as server,
        _relay(server.ws_url) as (relay, url),
        _tui(url, repo, tmp_path, server.token(), cd=True) as screen,
    ):
        await _flows(screen, server.home, repo, fake)
        await _settled(relay)
    exchanges = relay.exchanges()
    assert {"config/batchWrite", "turn/start", "review/start", "turn/interrupt"} <= {
        method for method, _, _ in exchanges
    }
    assert_all_answered(exchanges)


async def test_codex_tui_flows_over_the_unix_socket(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    socket_path = tmp_path / "tether.sock"
    async with (
        TuiFakeModel(SCRIPT) as fake,
        _daemon(tmp_path, fake, f"unix://{socket_path}") as server,
        _tui(f"unix://{socket_path}", repo, tmp_path, cd=True) as screen,
    ):
        await _flows(screen, server.home, repo, fake)
