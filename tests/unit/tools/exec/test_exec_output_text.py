"""The text the model sees for exec_command / write_stdin, and how over-long output is cut."""

from __future__ import annotations

import re

from tether_server.tools.exec import (
    approx_token_count,
    format_model_text,
    looks_like_sandbox_denial,
    truncate_for_model,
)
from tether_server.tools.exec.output import Collected, HeadTailBuffer

# The function_call_output of `echo hi > out.txt && cat out.txt` recorded from codex-cli 0.169.0
# (transcripts/shell_approved.upstream-requests.jsonl, call_shell_1).
RECORDED_ECHO_OUTPUT = (
    "Chunk ID: 691b76\nWall time: 0.0000 seconds\nProcess exited with code 0\n"
    "Original token count: 1\nOutput:\nhi\n"
)


def test_finished_command_text_matches_the_recorded_codex_output() -> None:
    text = format_model_text(
        chunk_id="691b76",
        wall_time_s=0.0,
        exit_code=0,
        session_id=None,
        original_token_count=approx_token_count("hi\n"),
        output="hi\n",
    )

    assert text == RECORDED_ECHO_OUTPUT


def test_running_command_text_names_the_session_instead_of_an_exit_code() -> None:
    text = format_model_text(
        chunk_id="abc123",
        wall_time_s=0.25,
        exit_code=None,
        session_id=1000,
        original_token_count=2,
        output="ready\n",
    )

    assert text == (
        "Chunk ID: abc123\nWall time: 0.2500 seconds\nProcess running with session ID 1000\n"
        "Original token count: 2\nOutput:\nready\n"
    )


def test_token_count_line_is_left_out_when_not_given() -> None:
    text = format_model_text(
        chunk_id="abc123", wall_time_s=1.5, exit_code=0, session_id=None, original_token_count=None, output=""
    )

    assert "Original token count" not in text
    assert text.endswith("Process exited with code 0\nOutput:\n")


def test_tokens_are_estimated_as_a_quarter_of_the_utf8_bytes_rounded_up() -> None:
    assert approx_token_count("") == 0
    assert approx_token_count("hi\n") == 1
    assert approx_token_count("12345678") == 2
    assert approx_token_count("é") == 1  # two bytes


def test_output_within_budget_is_kept_verbatim() -> None:
    assert truncate_for_model("a\nb\n", 10) == "a\nb\n"


def test_over_budget_output_keeps_head_and_tail_around_a_token_marker() -> None:
    text = "".join(f"line {i}\n" for i in range(1000))

    cut = truncate_for_model(text, 10)

    assert cut.startswith("Total output lines: 1000\n\nline 0\nline ")
    assert cut.endswith("line 999\n")
    match = re.search(r"…(\d+) tokens truncated…", cut)
    assert match is not None
    kept = len(cut.encode()) - len(match.group(0).encode()) - len("Total output lines: 1000\n\n")
    assert kept == 40
    assert int(match.group(1)) == (len(text.encode()) - 40 + 3) // 4


def test_truncation_never_splits_a_multibyte_character() -> None:
    text = "é" * 100

    cut = truncate_for_model(text, 1)

    assert "\ufffd" not in cut
    assert cut.startswith("Total output lines: 1\n\né…")
    assert cut.endswith("…é")


def test_buffer_beyond_capacity_keeps_both_ends_and_counts_everything() -> None:
    buffer = HeadTailBuffer(capacity=10)
    for chunk in ("abcde", "fghij\n", "klmno", "pqrst\n"):
        buffer.append(chunk)

    collected = buffer.take()

    assert collected == Collected(text="abcdeqrst\n", total_bytes=22, total_lines=2, lossy=True)
    assert collected.token_count == 6
    assert buffer.take() == Collected(text="", total_bytes=0, total_lines=0, lossy=False)


def test_lossy_output_marker_counts_the_dropped_middle_too() -> None:
    collected = Collected(text="a" * 8 + "b" * 8, total_bytes=1016, total_lines=3, lossy=True)

    cut = collected.for_model(2)

    assert cut == "Total output lines: 3\n\naaaa…252 tokens truncated…bbbb"


def test_permission_errors_in_a_failed_command_look_like_a_sandbox_denial() -> None:
    assert looks_like_sandbox_denial(1, "touch: cannot touch 'x': Read-only file system\n")
    assert looks_like_sandbox_denial(2, "bash: x: Permission denied")
    assert looks_like_sandbox_denial(159, "")


def test_ordinary_failures_and_successes_do_not_look_like_a_sandbox_denial() -> None:
    assert not looks_like_sandbox_denial(0, "permission denied")
    assert not looks_like_sandbox_denial(127, "bash: nope: command not found")
    assert not looks_like_sandbox_denial(1, "assertion failed")
