"""A hook's answer read as Codex 0.169.0 reads it (each case observed on the binary): real `sh`
processes, their exit code, stdout and stderr turned into a status, entries, a block or context."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tether_server.core.hooks import interpret, spill
from tether_server.tools.hooks import run_command_hook

ALLOW = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}
DENY = {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "json says no"}}
POST = {"decision": "block", "reason": "post says no", "hookSpecificOutput": {"additionalContext": "C"}}


@pytest.mark.parametrize(
    ("event", "command", "status", "entries", "block"),
    [
        (
            "PreToolUse",
            "echo 'no touching' >&2; exit 2",
            "blocked",
            [("feedback", "no touching")],
            "no touching",
        ),
        ("UserPromptSubmit", "echo oops >&2; exit 1", "failed", [("error", "hook exited with code 1")], None),
        ("SessionStart", "echo plain stdout", "completed", [("context", "plain stdout")], None),
        ("Stop", "echo plain stdout", "completed", [], None),
        (
            "PreToolUse",
            f"echo '{json.dumps(DENY)}'",
            "blocked",
            [("feedback", "json says no")],
            "json says no",
        ),
        (
            "PostToolUse",
            f"echo '{json.dumps(POST)}'",
            "blocked",
            [("context", "C"), ("feedback", "post says no")],
            "post says no",
        ),
        (
            "Stop",
            """echo '{"continue":false,"stopReason":"enough"}'""",
            "stopped",
            [("stop", "enough")],
            None,
        ),
        ("PermissionRequest", f"echo '{json.dumps(ALLOW)}'", "completed", [], None),
        ("PreToolUse", "exit 0", "completed", [], None),
    ],
)
async def test_a_finished_hook_reads_as_codex_reads_it(
    tmp_path: Path, event: str, command: str, status: str, entries: list[tuple[str, str]], block: str | None
) -> None:
    result = await run_command_hook(command, b"{}", tmp_path, dict(os.environ), 10)
    answer = interpret(event, result, 10)
    assert (answer.status, answer.entries, answer.block) == (status, entries, block)
    assert answer.allow == (event == "PermissionRequest" and "allow" in command)


async def test_a_hook_reads_its_stdin_and_runs_in_the_given_directory(tmp_path: Path) -> None:
    result = await run_command_hook('cat; echo " $PWD"', b'{"a":1}', tmp_path, dict(os.environ), 10)
    assert (result.exit_code, result.stdout.strip()) == (0, f'{{"a":1}} {tmp_path}')


async def test_a_hook_past_its_timeout_is_killed_and_fails(tmp_path: Path) -> None:
    result = await run_command_hook("sleep 30", b"", tmp_path, dict(os.environ), 0.2)
    assert result.timed_out and result.exit_code is None
    assert interpret("Stop", result, 1).entries == [("error", "hook timed out after 1s")]


def test_context_past_its_limit_goes_to_a_file_of_the_users_own() -> None:
    text = "x" * 50
    assert spill(text, 0, "run") == text  # 0: never spilled
    assert spill(text, None, "run") == text  # under 2,500 tokens
    cut = spill(text, 10, "stop:0:/c.toml")  # about 40 characters allowed
    path = Path(cut.rsplit("the full text is in ", 1)[1].rstrip("]"))
    assert path.read_text() == text
    assert path.parent.name == f"tether-hook-context-{os.getuid()}"
    assert (path.stat().st_mode & 0o777, path.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    path.unlink()
