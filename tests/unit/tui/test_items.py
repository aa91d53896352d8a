"""How the TUI grows items from deltas and draws them."""

from __future__ import annotations

from tether_tui.items import apply_delta, render_item, render_plan, render_usage


def test_agent_message_deltas_accumulate_into_the_shown_text() -> None:
    item = {"type": "agentMessage", "id": "m1", "text": ""}
    for piece in ("Hel", "lo"):
        apply_delta(item, "item/agentMessage/delta", {"itemId": "m1", "delta": piece})
    assert render_item(item).plain == "Hello"


def test_reasoning_summary_deltas_fill_their_part_even_when_it_is_new() -> None:
    item = {"type": "reasoning", "id": "r1", "summary": []}
    apply_delta(item, "item/reasoning/summaryTextDelta", {"delta": "second", "summaryIndex": 1})
    apply_delta(item, "item/reasoning/summaryTextDelta", {"delta": "first", "summaryIndex": 0})
    assert item["summary"] == ["first", "second"]
    assert render_item(item).plain == "thinking: first\nsecond"


def test_a_command_shows_its_streamed_output_and_then_its_exit_code() -> None:
    item: dict[str, object] = {
        "type": "commandExecution",
        "id": "c1",
        "command": "ls",
        "status": "inProgress",
    }
    apply_delta(item, "item/commandExecution/outputDelta", {"delta": "a.txt\n"})
    assert render_item(item).plain == "$ ls\na.txt\nrunning…"
    item |= {"status": "completed", "exitCode": 0}
    assert render_item(item).plain.endswith("completed (exit 0)")


def test_long_command_output_is_cut_to_its_tail() -> None:
    output = "".join(f"line {n}\n" for n in range(100))
    item = {"type": "commandExecution", "command": "seq", "status": "completed", "aggregatedOutput": output}
    text = render_item(item).plain
    assert "60 more lines" in text and "line 99" in text and "line 59\n" not in text


def test_a_file_change_lists_each_file_with_its_diff() -> None:
    change = {"path": "a.py", "kind": {"type": "update", "move_path": None}, "diff": "@@\n-old\n+new"}
    item = {"type": "fileChange", "id": "p1", "status": "inProgress", "changes": [change]}
    assert render_item(item).plain == "✎ file changes (inProgress)\nupdate a.py\n@@\n-old\n+new"
    apply_delta(item, "item/fileChange/patchUpdated", {"changes": []})
    assert "a.py" not in render_item(item).plain


def test_a_user_message_shows_its_text_and_names_other_inputs() -> None:
    item = {"type": "userMessage", "content": [{"type": "text", "text": "look"}, {"type": "localImage"}]}
    assert render_item(item).plain == "> look [localImage]"


def test_the_plan_is_a_checklist_and_usage_a_footer_line() -> None:
    steps = [{"step": "read", "status": "completed"}, {"step": "fix", "status": "inProgress"}]
    assert render_plan("two steps", steps).plain == "plan: two steps\n✔ read\n▸ fix"
    usage = {"total": {"totalTokens": 1500}, "last": {"totalTokens": 20}, "modelContextWindow": 128000}
    assert render_usage(usage) == "tokens 1,500 total · 20 last turn · context window 128,000"


def test_an_added_file_shows_its_content_as_added_lines() -> None:
    item = {
        "type": "fileChange",
        "status": "completed",
        "changes": [{"path": "n.txt", "kind": "add", "diff": "x\n"}],
    }
    assert render_item(item).plain.endswith("add n.txt\n+x")
