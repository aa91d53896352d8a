"""What `tether exec` shows on stderr for the events a user cares about."""

from __future__ import annotations

from typing import Any

from tether_client.exec_report import progress_line
from tether_client.messages import Notification


def _note(method: str, params: dict[str, Any]) -> Notification:
    return Notification.from_message({"method": method, "params": params})


def test_a_command_is_shown_when_it_starts_and_its_exit_code_when_it_ends() -> None:
    item = {"type": "commandExecution", "command": "pytest -q", "status": "inProgress"}
    assert progress_line(_note("item/started", {"item": item})) == "$ pytest -q"
    done = {**item, "status": "completed", "exitCode": 0, "durationMs": 120}
    assert progress_line(_note("item/completed", {"item": done})) == "  exit 0 (completed, 120 ms)"


def test_changed_files_are_listed_with_their_kind() -> None:
    changes = [
        {"path": "a.py", "kind": {"type": "add"}, "diff": ""},
        {"path": "b.py", "kind": {"type": "update", "move_path": None}, "diff": ""},
    ]
    item = {"type": "fileChange", "changes": changes, "status": "completed"}
    assert progress_line(_note("item/completed", {"item": item})) == (
        "  A a.py (completed)\n  M b.py (completed)"
    )


def test_retried_errors_say_so_and_deltas_are_not_shown() -> None:
    error = {"error": {"message": "stream dropped"}, "willRetry": True}
    assert progress_line(_note("error", error)) == "error: stream dropped (retrying)"
    assert progress_line(_note("item/agentMessage/delta", {"delta": "x"})) is None
