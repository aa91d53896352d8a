"""The skeleton of a transcript (one line per message and per step) and the comparison of two.

A skeleton keeps what the protocol decides — who sent what, which method, which result members,
error codes, item types and statuses — and drops the payloads, so that two recordings of a scenario
can be compared line by line.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

Record = dict[str, Any]


def skeleton(records: list[Record]) -> list[str]:
    """The skeleton lines of a transcript's records."""
    return [line for record in records if (line := skeleton_line(record)) is not None]


def skeleton_line(record: Record) -> str | None:
    """One record's line, or None for a record the skeleton leaves out."""
    direction = record.get("dir")
    if direction == "meta":
        return _meta_line(record)
    if "raw" in record:
        return f"{direction} raw {record['raw']!r}"
    msg = record.get("msg")
    if not isinstance(msg, dict) or direction not in ("send", "recv"):
        return None
    return f"{direction} {_message_summary(msg, direction)}"


def _meta_line(record: Record) -> str:
    event = record.get("event")
    if event == "step":
        method = f" {record['method']}" if record.get("method") else ""
        return f"-- step {record['index']}: {record['op']}{method}"
    if event == "mock_summary":
        return f"## mock_summary model_requests={record['model_requests']}"
    return f"## {event}"


def _message_summary(msg: Record, direction: str) -> str:
    method = msg.get("method")
    if method is not None and "id" in msg:
        # The server's requests show their parameter names: they are the protocol's contract with the
        # client. The scripted client's own requests are the same on every run.
        return f"request {method} {_keys(msg.get('params'))}" if direction == "recv" else f"request {method}"
    if method is not None:
        return f"notification {method}{_notification_detail(method, msg.get('params'))}"
    if "error" in msg:
        error = msg["error"] if isinstance(msg["error"], dict) else {}
        return f"error id={msg.get('id')} code={error.get('code')}"
    return f"result id={msg.get('id')} {_keys(msg.get('result'))}"


def _keys(value: Any) -> str:
    return json.dumps(sorted(value) if isinstance(value, dict) else [])


def _notification_detail(method: str, params: Any) -> str:
    params = params if isinstance(params, dict) else {}
    if method == "thread/status/changed":
        return " " + json.dumps(params.get("status"), sort_keys=True)
    if method in ("turn/started", "turn/completed"):
        turn = params.get("turn") if isinstance(params.get("turn"), dict) else {}
        return f" status={turn.get('status')}"
    if method in ("item/started", "item/completed"):
        item = params.get("item") if isinstance(params.get("item"), dict) else {}
        status = f" status={item['status']}" if "status" in item else ""
        return f" {item.get('type')}{status}"
    return ""


# ---- comparison ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """A step (or a `##` event) and the message lines logged while it ran."""

    head: str
    lines: tuple[str, ...]


def sections(lines: list[str]) -> list[Section]:
    """The skeleton cut at every step and `##` line."""
    found: list[Section] = []
    head, body = "", list[str]()
    for line in lines:
        if line.startswith(("-- step ", "## ")):
            if head or body:
                found.append(Section(head, tuple(body)))
            head, body = line, []
        else:
            body.append(line)
    if head or body:
        found.append(Section(head, tuple(body)))
    return found


@dataclass
class Comparison:
    """How a fresh skeleton differs from the committed one.

    Attributes:
        differences: what the protocol did differently (a failed check).
        moved: server-initiated messages that crossed one step line (tolerated, see `compare`).
        reordered: whether lines came in another order inside some step (tolerated).
    """

    differences: list[str]
    moved: list[str]
    reordered: bool


MOVABLE = ("recv notification ", "recv request ")
"""Messages the server sends on its own. They race the answers to the client's requests (thread/started
against the thread/start result, remoteControl/status/changed against the initialized notification,
turn/completed against the turn/interrupt result), so they may be logged on either side of the step
line that follows or precedes them."""


def compare(expected: list[str], actual: list[str]) -> Comparison:
    """Compare two skeletons of a scenario: the same steps, and in each step the same lines in any
    order, except that a server-initiated message may sit one step earlier or later."""
    want, got = sections(expected), sections(actual)
    if [s.head for s in want] != [s.head for s in got]:
        heads = [f"  expected: {[s.head for s in want]}", f"  recorded: {[s.head for s in got]}"]
        return Comparison(["the steps differ", *heads], [], False)
    missing = [Counter(w.lines) - Counter(g.lines) for w, g in zip(want, got, strict=True)]
    extra = [Counter(g.lines) - Counter(w.lines) for w, g in zip(want, got, strict=True)]
    moved = []
    for index, surplus in enumerate(extra):
        for line in list(surplus.elements()):
            if not line.startswith(MOVABLE):
                continue
            for other in (index - 1, index + 1):
                if 0 <= other < len(missing) and missing[other][line] > 0:
                    missing[other][line] -= 1
                    surplus[line] -= 1
                    moved.append(f"{line!r}: {want[other].head!r} -> {want[index].head!r}")
                    break
    differences = []
    for index, section in enumerate(want):
        differences += [f"{section.head}: missing {line!r}" for line in missing[index].elements()]
        differences += [f"{section.head}: unexpected {line!r}" for line in extra[index].elements()]
    reordered = any(
        w.lines != g.lines and Counter(w.lines) == Counter(g.lines) for w, g in zip(want, got, strict=True)
    )
    return Comparison(differences, moved, reordered)
