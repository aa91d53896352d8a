"""Thread items as the TUI keeps them: wire dicts grown by deltas, and how each one is drawn.

Items stay the wire dicts the server sends (camelCase keys) so history from `thread/turns/list`
and live `item/*` notifications share one code path. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from textual.content import Content

Item = dict[str, Any]

# Delta method → the item field its text is appended to.
_TEXT_DELTAS: Mapping[str, str] = {
    "item/agentMessage/delta": "text",
    "item/plan/delta": "text",
    "item/commandExecution/outputDelta": "aggregatedOutput",
}
# Delta method → (list field, index param) for reasoning parts.
_PART_DELTAS: Mapping[str, tuple[str, str]] = {
    "item/reasoning/summaryTextDelta": ("summary", "summaryIndex"),
    "item/reasoning/textDelta": ("content", "contentIndex"),
}
DELTA_METHODS = frozenset({*_TEXT_DELTAS, *_PART_DELTAS, "item/fileChange/patchUpdated"})
"""Notifications that change an item already on screen."""

_OUTPUT_TAIL_LINES = 40


def apply_delta(item: Item, method: str, params: Mapping[str, Any]) -> None:
    """Grow `item` in place with one delta notification's params."""
    if method in _TEXT_DELTAS:
        field = _TEXT_DELTAS[method]
        item[field] = (item.get(field) or "") + str(params.get("delta", ""))
    elif method in _PART_DELTAS:
        field, index_key = _PART_DELTAS[method]
        parts: list[str] = list(item.get(field) or [])
        index = int(params.get(index_key, 0))
        parts.extend([""] * (index + 1 - len(parts)))
        parts[index] += str(params.get("delta", ""))
        item[field] = parts
    elif method == "item/fileChange/patchUpdated":
        item["changes"] = list(params.get("changes") or [])


def user_text(item: Mapping[str, Any]) -> str:
    """The text a user message carried (other inputs named by their type)."""
    parts = []
    for part in item.get("content") or []:
        kind = part.get("type")
        parts.append(str(part.get("text", "")) if kind == "text" else f"[{kind}]")
    return " ".join(parts)


def render_item(item: Mapping[str, Any]) -> Content:
    """How one item looks in the transcript."""
    kind = item.get("type")
    if kind == "userMessage":
        return Content.assemble(("> ", "bold $accent"), (user_text(item), "bold"))
    if kind == "agentMessage":
        return Content(str(item.get("text", "")))
    if kind == "reasoning":
        summary = "\n".join(p for p in item.get("summary") or [] if p)
        return Content.assemble(("thinking: ", "italic $text-muted"), (summary or "…", "italic $text-muted"))
    if kind == "commandExecution":
        return render_command(item)
    if kind == "fileChange":
        return render_file_change(item)
    if kind == "plan":
        return Content.assemble(("plan: ", "bold"), str(item.get("text", "")))
    return Content.assemble((f"[{kind}]", "$text-muted"))


def render_command(item: Mapping[str, Any]) -> Content:
    """`$ command`, the tail of its output, and how it ended."""
    status = str(item.get("status", ""))
    lines = (item.get("aggregatedOutput") or "").rstrip("\n").splitlines()
    if len(lines) > _OUTPUT_TAIL_LINES:
        lines = [f"… {len(lines) - _OUTPUT_TAIL_LINES} more lines", *lines[-_OUTPUT_TAIL_LINES:]]
    parts: list[str | tuple[str, str]] = [("$ ", "bold $success"), (str(item.get("command", "")), "bold")]
    parts += [("\n" + line, "$text-muted") for line in lines]
    parts.append(("\n" + _command_outcome(status, item.get("exitCode")), _status_style(status)))
    return Content.assemble(*parts)


def _command_outcome(status: str, exit_code: Any) -> str:
    if status == "inProgress":
        return "running…"
    if exit_code is not None:
        return f"{status} (exit {exit_code})"
    return status


def _status_style(status: str) -> str:
    if status in ("failed", "declined"):
        return "$error"
    return "$text-muted" if status == "inProgress" else "$success"


def render_file_change(item: Mapping[str, Any]) -> Content:
    """Each changed file with its diff, added lines green and removed lines red."""
    status = str(item.get("status", ""))
    parts: list[str | tuple[str, str]] = [("✎ file changes ", "bold"), (f"({status})", _status_style(status))]
    for change in item.get("changes") or []:
        kind = change.get("kind")
        label = kind.get("type") if isinstance(kind, dict) else kind
        parts.append((f"\n{label} {change.get('path', '')}", "bold"))
        parts += [
            ("\n" + line, _diff_style(line)) for line in _diff_lines(label, str(change.get("diff", "")))
        ]
    return Content.assemble(*parts)


def _diff_lines(kind: Any, diff: str) -> list[str]:
    # Added and deleted files carry their whole content rather than a diff; show it as one.
    lines = diff.splitlines()
    if kind == "add":
        return [f"+{line}" for line in lines]
    if kind == "delete":
        return [f"-{line}" for line in lines]
    return lines


def _diff_style(line: str) -> str:
    if line.startswith("+") and not line.startswith("+++"):
        return "$success"
    if line.startswith("-") and not line.startswith("---"):
        return "$error"
    return "$text-muted" if line.startswith("@@") else ""


def render_plan(explanation: str | None, steps: Sequence[Mapping[str, Any]]) -> Content:
    """The agent's plan (`turn/plan/updated`) as a checklist."""
    marks = {"completed": "✔", "inProgress": "▸", "pending": "□"}
    parts: list[str | tuple[str, str]] = [("plan", "bold")]
    if explanation:
        parts.append(f": {explanation}")
    for step in steps:
        status = str(step.get("status", "pending"))
        style = "$text-muted strike" if status == "completed" else ("bold" if status == "inProgress" else "")
        parts.append((f"\n{marks.get(status, '□')} {step.get('step', '')}", style))
    return Content.assemble(*parts)


def render_usage(usage: Mapping[str, Any]) -> str:
    """`thread/tokenUsage/updated`'s `tokenUsage` as one footer line."""
    total = (usage.get("total") or {}).get("totalTokens", 0)
    last = (usage.get("last") or {}).get("totalTokens", 0)
    window = usage.get("modelContextWindow")
    text = f"tokens {total:,} total · {last:,} last turn"
    return text + (f" · context window {window:,}" if window else "")
