"""What `tether exec` shows while a turn runs: JSONL events on stdout or progress lines on stderr."""

from __future__ import annotations

import asyncio
import sys
from typing import Any, TextIO

import orjson

from tether_client.messages import Notification
from tether_client.subscription import Subscription

_KIND_MARK = {"add": "A", "delete": "D", "update": "M"}


def progress_line(notification: Notification) -> str | None:
    """One human line for a notification worth showing, else None."""
    params = notification.params
    item: dict[str, Any] = params.get("item") or {}
    kind = item.get("type")
    if notification.method == "item/started" and kind == "commandExecution":
        return f"$ {item.get('command', '')}"
    if notification.method == "item/completed" and kind == "commandExecution":
        return f"  exit {item.get('exitCode')} ({item.get('status')}, {item.get('durationMs') or 0} ms)"
    if notification.method == "item/completed" and kind == "fileChange":
        changes = item.get("changes") or []
        return "\n".join(_change_line(change, item.get("status")) for change in changes) or None
    if notification.method == "error":
        error = params.get("error") or {}
        retry = " (retrying)" if params.get("willRetry") else ""
        return f"error: {error.get('message', '')}{retry}"
    if notification.method == "warning":
        return f"warning: {params.get('message', '')}"
    return None


def _change_line(change: dict[str, Any], status: Any) -> str:
    kind = change.get("kind") or {}
    name = kind.get("type") if isinstance(kind, dict) else kind
    mark = _KIND_MARK.get(str(name), "?")
    return f"  {mark} {change.get('path', '')} ({status})"


class Reporter:
    """Consumes every notification of the connection and reports it as it arrives."""

    def __init__(self, subscription: Subscription, *, json_mode: bool, out: TextIO | None = None) -> None:
        self._subscription = subscription
        self._json = json_mode
        self._out = out or sys.stdout
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        async for notification in self._subscription:
            self.report(notification)

    def report(self, notification: Notification) -> None:
        if self._json:
            event = {"method": notification.method, "params": notification.params}
            self._out.write(orjson.dumps(event).decode() + "\n")
            self._out.flush()
            return
        line = progress_line(notification)
        if line:
            note(line)

    async def finish(self) -> None:
        """Report what has arrived so far, then stop."""
        self._subscription.close()
        await self._task


def note(text: str) -> None:
    """A progress line on stderr (stdout is for the answer)."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
