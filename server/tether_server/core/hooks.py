"""Running the configured hooks of one turn at each of its events, and what their answers mean.

What Codex 0.169.0 does, observed with command hooks that dump their stdin and answer in each way:

* Only hooks the user trusted (and left enabled) run; the others are skipped without a word.
* Each run is announced by `hook/started` and ends with `hook/completed` carrying its status
  (`completed`, `failed`, `blocked`, `stopped`) and entries (`context`, `feedback`, `error`...).
* Exit 0: stdout is a JSON object (`decision: "block"` + `reason`; `hookSpecificOutput` with
  `permissionDecision: "deny"` + `permissionDecisionReason` or `additionalContext`; `continue:
  false` + `stopReason`; `systemMessage`) or, for SessionStart and UserPromptSubmit, plain text
  taken as context for the model.
* Exit 2: blocked, stderr is the reason (`feedback`). Another exit code: failed, `hook exited with
  code N`. Past its timeout the hook is killed: failed, `hook timed out after Ns`.
* Context reaches the model as a developer message after the user's input; past the hook's
  `additionalContextLimit` (2,500 tokens when unset, 0 never) the full text goes to a file and
  the model gets a preview and the file's path.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tether_server.config.hooks import Hook, matches
from tether_server.core import events as ev
from tether_server.core.hook_mcp import run_mcp_hook
from tether_server.core.ids import now_s, uuid7
from tether_server.core.ports import EventSink
from tether_server.tools.hooks import HookProcessResult, run_command_hook
from tether_server.tools.mcp.calls import CallOrigin
from tether_server.tools.mcp.manager import McpManager

DEFAULT_CONTEXT_LIMIT_TOKENS = 2_500
PREVIEW_CHARS = 2_000
BLOCKING = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit", "Stop"})
PLAIN_TEXT_CONTEXT = frozenset({"SessionStart", "UserPromptSubmit"})
THREAD_SCOPED = frozenset({"SessionStart", "SessionEnd", "SubagentStart"})


@dataclass
class HookOutcome:
    """What the hooks of one event decided, together."""

    blocked: list[tuple[str, str]] = field(default_factory=list)
    """(run id, reason) of each hook that blocked (empty: nothing blocked)."""
    contexts: list[str] = field(default_factory=list)
    """Text for the model, already cut to its limit."""
    stopped: str | None = None
    allowed: bool = False
    """A PermissionRequest hook allowed the action (no one is asked)."""

    @property
    def block_reason(self) -> str | None:
        return "; ".join(reason for _, reason in self.blocked) if self.blocked else None


@dataclass
class _Answer:
    status: str
    entries: list[tuple[str, str]] = field(default_factory=list)
    block: str | None = None
    context: str | None = None
    stop: str | None = None
    allow: bool = False


class _Silent:
    """A sink for hooks whose runs nobody is told about (SessionEnd: the thread is going away)."""

    async def emit(self, event: ev.CoreEvent) -> None:
        return None

    def emit_delta(self, event: ev.CoreEvent) -> None:
        return None

    def emit_deltas(self, events: Sequence[ev.CoreEvent]) -> None:
        return None


SILENT = _Silent()


class TurnHooks:
    """The hooks that run in one turn, with what every hook's stdin shares."""

    def __init__(
        self,
        hooks: Sequence[Hook],
        *,
        thread_id: str,
        turn_id: str,
        cwd: Path,
        env: Mapping[str, str],
        sink: EventSink,
        common: Mapping[str, Any],
        mcp: McpManager | None = None,
    ) -> None:
        self._hooks = list(hooks)
        self._mcp = mcp
        self._thread_id, self._turn_id = thread_id, turn_id
        self._cwd, self._env, self._sink = cwd, dict(env), sink
        self._common = dict(common)
        self._background: set[asyncio.Task[HookProcessResult]] = set()

    def has(self, event: str) -> bool:
        return any(hook.event == event for hook in self._hooks)

    async def run(
        self,
        event: str,
        fields: Mapping[str, Any],
        subject: str | None = None,
        run_suffix: str = "",
        drop: tuple[str, ...] = (),
    ) -> HookOutcome:
        """Run `event`'s hooks that match `subject` (a tool name), each with `fields` added to the
        common stdin. Sync ones are awaited together and reported; async ones are started and left
        running, unreported and unheard, as Codex runs them."""
        outcome = HookOutcome()
        chosen = [hook for hook in self._hooks if hook.event == event and matches(hook, subject)]
        if not chosen:
            return outcome
        common = {key: value for key, value in self._common.items() if key not in drop}
        payload = {**common, "hook_event_name": event, **fields}
        stdin = json.dumps(payload, ensure_ascii=False).encode()
        for hook in (hook for hook in chosen if hook.is_async):
            task = asyncio.create_task(self._execute(hook, stdin))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        sync = [hook for hook in chosen if not hook.is_async]
        runs = [self._new_run(hook, run_suffix) for hook in sync]
        for run in runs:
            await self._sink.emit(ev.HookStarted(self._thread_id, self._turn_id, run))
        waits = [self._run_one(hook, run, stdin) for hook, run in zip(sync, runs, strict=True)]
        waited = [run.id for run in runs]
        for run_id, answer in zip(waited, await asyncio.gather(*waits), strict=True):
            if answer.block is not None:
                outcome.blocked.append((run_id, answer.block))
            if answer.context is not None:
                outcome.contexts.append(answer.context)
            if answer.stop is not None and outcome.stopped is None:
                outcome.stopped = answer.stop
            outcome.allowed = outcome.allowed or answer.allow
        return outcome

    async def permission(
        self, tool_name: str, tool_input: Mapping[str, Any], call_id: str
    ) -> tuple[bool, str] | None:
        """PermissionRequest, for an action that would ask the user: (True, "") when a hook allowed
        it (ask no one), (False, reason) when one denied it (a denial wins), None when no hook
        decided (ask as usual)."""
        fields = {"tool_name": tool_name, "tool_input": dict(tool_input)}
        outcome = await self.run("PermissionRequest", fields, tool_name, call_id)
        if outcome.block_reason is not None:
            return False, outcome.block_reason
        return (True, "") if outcome.allowed else None

    def _new_run(self, hook: Hook, suffix: str) -> ev.HookRun:
        kebab = "".join("-" + c.lower() if c.isupper() else c for c in hook.event).lstrip("-")
        run_id = f"{kebab}:{hook.display_order}:{hook.source_path}" + (f":{suffix}" if suffix else "")
        return ev.HookRun(
            id=run_id,
            event_name=hook.event_name,
            scope="thread" if hook.event in THREAD_SCOPED else "turn",
            source_path=str(hook.source_path),
            source=hook.source,
            display_order=hook.display_order,
            status="running",
            status_message=hook.status_message,
            started_at=now_s(),
            handler_type=hook.handler_type,
        )

    async def _execute(self, hook: Hook, stdin: bytes) -> HookProcessResult:
        if hook.mcp is not None:
            origin = CallOrigin(self._thread_id, self._turn_id or None)
            return await run_mcp_hook(self._mcp, hook.mcp, hook.timeout_sec, origin)
        return await run_command_hook(hook.command, stdin, self._cwd, self._env, hook.timeout_sec)

    async def _run_one(self, hook: Hook, run: ev.HookRun, stdin: bytes) -> _Answer:
        result = await self._execute(hook, stdin)
        answer = interpret(hook.event, result, hook.timeout_sec)
        if answer.context is not None:
            answer.context = await asyncio.to_thread(
                spill, answer.context, hook.additional_context_limit, run.id
            )
        done = replace(
            run,
            status=answer.status,
            entries=tuple(answer.entries),
            completed_at=now_s(),
            duration_ms=result.duration_ms,
        )
        await self._sink.emit(ev.HookCompleted(self._thread_id, self._turn_id, done))
        return answer


def interpret(event: str, result: HookProcessResult, timeout_s: int) -> _Answer:
    """A finished hook process read as Codex reads it."""
    if result.error is not None:
        return _Answer("failed", [("error", result.error)])
    if result.timed_out:
        return _Answer("failed", [("error", f"hook timed out after {timeout_s}s")])
    if result.exit_code == 2 and event in BLOCKING:
        reason = result.stderr.strip()
        return _Answer("blocked", [("feedback", reason)], block=reason)
    if result.exit_code != 0:
        return _Answer("failed", [("error", f"hook exited with code {result.exit_code}")])
    text = result.stdout.strip()
    if not text:
        return _Answer("completed")
    try:
        decoded = json.loads(text) if text.startswith("{") else None
    except json.JSONDecodeError:
        decoded = None
    if isinstance(decoded, dict):
        return _json_answer(event, decoded)
    if event in PLAIN_TEXT_CONTEXT:
        return _Answer("completed", [("context", text)], context=text)
    return _Answer("completed")


def _json_answer(event: str, out: dict[str, Any]) -> _Answer:
    answer = _Answer("completed")
    specific = out.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    message = out.get("systemMessage")
    if isinstance(message, str) and message:
        answer.entries.append(("warning", message))
    if out.get("continue") is False:
        stop_reason = out.get("stopReason")
        answer.stop = stop_reason if isinstance(stop_reason, str) else ""
        answer.status = "stopped"
        answer.entries.append(("stop", answer.stop))
        return answer
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        answer.context = context
        answer.entries.append(("context", context))
    reason: Any = None
    decision = specific.get("decision")
    if out.get("decision") == "block":
        reason = out.get("reason")
    elif specific.get("permissionDecision") == "deny":
        reason = specific.get("permissionDecisionReason")
    elif isinstance(decision, dict) and decision.get("behavior") == "deny":
        reason = decision.get("message", "")
    elif isinstance(decision, dict) and decision.get("behavior") == "allow" and event == "PermissionRequest":
        answer.allow = True
    if reason is not None and event in BLOCKING:
        answer.block = reason if isinstance(reason, str) else ""
        answer.status = "blocked"
        answer.entries.append(("feedback", answer.block))
    return answer


def spill(text: str, limit_tokens: int | None, run_id: str) -> str:
    """`text` as the model gets it: whole when under the limit (about 4 characters a token), else
    a preview and the path of a file holding all of it."""
    limit = DEFAULT_CONTEXT_LIMIT_TOKENS if limit_tokens is None else limit_tokens
    if limit == 0 or len(text) <= limit * 4:
        return text
    # The user's own folder in the shared temp directory: one someone else made (or a symlink)
    # is not written to, and the file is new (no following a planted link).
    folder = Path(tempfile.gettempdir()) / f"tether-hook-context-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            raise PermissionError(f"{folder} is not the user's own directory")
        path = folder / f"{uuid7()}.txt"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError:
        return text[: limit * 4]  # nowhere safe to keep the rest: the model gets what fits
    return (
        f"{text[:PREVIEW_CHARS]}\n\n[hook {run_id}: additional context of {len(text)} characters cut "
        f"here; the full text is in {path}]"
    )
