"""Plan mode's `<proposed_plan>` block: split out of the assistant's text into a `plan` item.

In plan mode the model presents its plan between `<proposed_plan>` and `</proposed_plan>` lines.
As Codex 0.169.0 does, the text inside streams as the plan item's deltas (the item starts when
the opening line is complete), the text outside as the agent message's, and the tag lines go to
neither. A line that may still turn out to be a tag is held back until it is known; any other
text passes at once. When the message is done, the plan item completes (before the message)
with the block's text taken from the whole message, which is authoritative; the message keeps
the rest. The model's history keeps the message as the model wrote it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tether_server.core import events as ev
from tether_server.core import items
from tether_server.core.ids import now_ms
from tether_server.core.ports import EventSink
from tether_server.providers.base import OutputTextDelta

OPEN = "<proposed_plan>"
CLOSE = "</proposed_plan>"

Segment = tuple[str, str]
"""("text" | "plan", text) or ("open" | "close", "")."""


@dataclass
class BlockSplitter:
    """The streaming state of one message: which side of the block it is on, and a held line start."""

    in_plan: bool = False
    at_line_start: bool = True
    held: str = ""

    def feed(self, chunk: str) -> list[Segment]:
        out: list[Segment] = []
        text, self.held = self.held + chunk, ""
        while text:
            newline = text.find("\n")
            if not self.at_line_start:
                end = len(text) if newline < 0 else newline + 1
                out.append(self._target(text[:end]))
                text, self.at_line_start = text[end:], newline >= 0
                continue
            line = text if newline < 0 else text[:newline]
            tag = CLOSE if self.in_plan else OPEN
            if newline < 0 and _may_become(line, tag):
                self.held = text
                break
            if newline >= 0 and line.strip() == tag:
                self.in_plan = not self.in_plan
                out.append(("open" if self.in_plan else "close", ""))
                text = text[newline + 1 :]
                continue
            end = len(text) if newline < 0 else newline + 1
            out.append(self._target(text[:end]))
            text, self.at_line_start = text[end:], newline >= 0
        return _joined(out)

    def finish(self) -> list[Segment]:
        """The held text once the message has ended: a tag if it is one, else text."""
        held, self.held = self.held, ""
        if not held:
            return []
        if held.strip() == (CLOSE if self.in_plan else OPEN):
            self.in_plan = not self.in_plan
            return [("open" if self.in_plan else "close", "")]
        return [self._target(held)]

    def _target(self, text: str) -> Segment:
        return ("plan" if self.in_plan else "text", text)


def _joined(segments: list[Segment]) -> list[Segment]:
    """Neighbouring pieces of the same side as one: a chunk's text streams as one delta."""
    out: list[Segment] = []
    for kind, text in segments:
        if out and kind == out[-1][0] and kind in ("text", "plan"):
            out[-1] = (kind, out[-1][1] + text)
        else:
            out.append((kind, text))
    return out


def _may_become(line: str, tag: str) -> bool:
    start = line.lstrip(" \t")
    return tag.startswith(start) or (start.startswith(tag) and not start[len(tag) :].strip())


def split(text: str) -> tuple[str, str | None]:
    """(the message's text without the block, the block's text or None when there is none)."""
    splitter = BlockSplitter()
    segments = splitter.feed(text) + splitter.finish()
    message = "".join(t for kind, t in segments if kind == "text")
    opened = any(kind == "open" for kind, _ in segments)
    plan = "".join(t for kind, t in segments if kind == "plan")
    return message, plan if opened else None


@dataclass
class ProposedPlan:
    """A plan-mode turn's splitting of the assistant's text (one per turn: the item id is the turn's)."""

    thread_id: str
    turn_id: str
    _splitters: dict[str, BlockSplitter] = field(default_factory=dict)
    _started: dict[str, items.Plan] = field(default_factory=dict)

    @property
    def item_id(self) -> str:
        return f"{self.turn_id}-plan"

    async def on_deltas(
        self, sink: EventSink, deltas: list[OutputTextDelta], streamed: dict[str, list[str]]
    ) -> None:
        """Stream a run of text deltas: message text, plan text, and the plan item's start; the raw
        text is kept in `streamed` (by message), for a message the user's steer cuts short."""
        out: list[ev.CoreEvent] = []
        for delta in deltas:
            parts = streamed.get(delta.item_id)
            if parts is not None:
                parts.append(delta.delta)
            splitter = self._splitters.setdefault(delta.item_id, BlockSplitter())
            for kind, text in splitter.feed(delta.delta):
                if kind == "open":
                    sink.emit_deltas(out)
                    out = []
                    await self._start(sink, delta.item_id)
                elif kind == "text" and text:
                    out.append(ev.AgentMessageDelta(self.thread_id, self.turn_id, delta.item_id, text))
                elif kind == "plan" and text:
                    out.append(ev.PlanDelta(self.thread_id, self.turn_id, self.item_id, text))
        if out:
            sink.emit_deltas(out)

    async def finish(
        self, sink: EventSink, record: Callable[[items.ThreadItem], None], message_id: str, text: str
    ) -> str:
        """Complete the message's plan item, if it has one; returns the message's own text."""
        self._splitters.pop(message_id, None)
        message, plan_text = split(text)
        plan = self._started.pop(message_id, None)
        if plan_text is None and plan is None:
            return message
        if plan is None:
            plan = await self._start(sink, message_id)
            self._started.pop(message_id, None)
        plan.text = plan_text or ""
        plan.completed_at_ms = now_ms()
        record(plan)
        await sink.emit(ev.ItemCompleted(self.thread_id, self.turn_id, plan))
        return message

    async def _start(self, sink: EventSink, message_id: str) -> items.Plan:
        plan = items.Plan(self.item_id, "", now_ms())
        self._started[message_id] = plan
        await sink.emit(ev.ItemStarted(self.thread_id, self.turn_id, plan))
        return plan
