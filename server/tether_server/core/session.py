"""A loaded thread's state and its turns: start, steer, interrupt. Owned by one ThreadHandle."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether_server import log
from tether_server.core import compaction, context, items, user_shell
from tether_server.core.execpolicy import ExecRules
from tether_server.core.history import normalized
from tether_server.core.ids import now_ms, now_s, uuid7
from tether_server.core.ports import ApprovalPort, EventSink
from tether_server.core.review import AutoReviewer
from tether_server.core.settings import TurnSettings
from tether_server.core.tool_calls import CommandGate, ToolContext, TurnCancelled
from tether_server.core.tool_specs import default_tools
from tether_server.core.turn import SamplingResult, TurnRun, sample_with_retries
from tether_server.core.usage import UsageTracker
from tether_server.errors import ConfigError, Conflict, ProviderError, TetherError
from tether_server.providers.base import ModelRequest
from tether_server.store.base import Batch, HistoryRecord, ItemRecord, ThreadRecord, TurnRecord
from tether_server.tools.exec.sessions import ProcessSessions

_log = log.get("tether.core.session")

INTERRUPTED_MARKER = (
    "<turn_aborted>\nThe user stopped the previous turn on purpose. Commands it started were stopped; "
    "any tool call may have run partially.\n</turn_aborted>"
)


@dataclass
class SessionDeps:
    """What a session needs from the composition root."""

    provider_for: Any  # Callable[[str], ModelProvider]: provider id → provider
    home: Path | None
    agents_max_bytes: int
    stream_max_retries: int
    context_window: int | None
    gate: CommandGate
    env: Mapping[str, str]
    approvals_for: Callable[[str], ApprovalPort] | None = None
    exec_rules: ExecRules | None = None
    auto_compact_token_limit: int | None = None
    allow_login_shell: bool = True
    private_paths: tuple[Path, ...] = ()
    hidden_paths: tuple[Path, ...] = ()


@dataclass
class ActiveTurn:
    id: str
    ordinal: int
    started_at: int
    started_mono_ms: int
    pending: list[tuple[list[dict[str, Any]], str | None]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    output_schema: dict[str, Any] | None = None


class ThreadSession:
    """State of one loaded thread. Only its handle calls it, on the event loop, so no locks."""

    def __init__(
        self,
        record: ThreadRecord,
        settings: TurnSettings,
        sink: EventSink,
        deps: SessionDeps,
        *,
        history: list[dict[str, Any]] | None = None,
        turn_count: int = 0,
        item_count: int = 0,
        ephemeral: bool = False,
    ) -> None:
        self.record = record
        self.settings = settings
        self.sink = sink
        self.deps = deps
        self.ephemeral = ephemeral
        self.history: list[dict[str, Any]] = compaction.fold(list(history or []))
        self._history_ordinal = len(history or [])  # stored records, markers included
        self._reference: TurnSettings | None = settings if history else None
        self._turn_count = turn_count
        self._item_count = item_count
        self._unsaved: Batch = Batch()
        self.usage = UsageTracker(deps.context_window)
        self.active: ActiveTurn | None = None
        self.status: dict[str, Any] = {"type": "idle"}
        self.processes = ProcessSessions()
        self.approved_for_session: set[str] = set()
        self._reviewer = AutoReviewer()
        self._side_tasks: set[asyncio.Task[None]] = set()
        self.materialized = bool(history) or bool(record.preview)

    # ---- persistence helpers -------------------------------------------------------------------

    def _record_history(self, turn_id: str, item: dict[str, Any]) -> None:
        self.history.append(item)
        self._unsaved.history.append(HistoryRecord(self.record.id, turn_id, self._history_ordinal, item))
        self._history_ordinal += 1

    def _record_item(self, turn: ActiveTurn, item: dict[str, Any]) -> None:
        turn.items.append(item)
        self._unsaved.items.append(
            ItemRecord(
                self.record.id,
                turn.id,
                str(item["id"]),
                self._item_count,
                item,
                item.get("startedAtMs"),
                item.get("completedAtMs"),
            )
        )
        self._item_count += 1

    def take_batch(self) -> Batch | None:
        """Everything recorded since the last durable event (the handle commits it with the event)."""
        batch = self._unsaved
        self._unsaved = Batch()
        if self.ephemeral:
            return None
        return batch

    # ---- status ---------------------------------------------------------------------------------

    async def set_status(self, status: dict[str, Any]) -> None:
        if status == self.status:
            return
        self.status = status
        await self.sink.emit("thread/status/changed", {"threadId": self.record.id, "status": status})

    # ---- turn control ---------------------------------------------------------------------------

    def _check_input(self, content: list[dict[str, Any]]) -> None:
        for entry in content:
            url = entry.get("url")
            if (
                entry.get("type") == "image"
                and isinstance(url, str)
                and url.startswith(("http://", "https://"))
            ):
                raise Conflict("remote image URLs are not supported; use an inline data URL instead")

    def start_turn(
        self,
        content: list[dict[str, Any]],
        client_id: str | None,
        settings: TurnSettings,
        output_schema: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Start a turn, or steer into the active one (Codex). Returns (turn json, started_new)."""
        self._check_input(content)
        self.settings = settings
        if self.active is not None:
            self.active.pending.append((content, client_id))
            return items.turn(self.active.id, "inProgress", started_at=None), False
        turn = ActiveTurn(uuid7(), self._turn_count, now_s(), now_ms(), output_schema=output_schema)
        self._turn_count += 1
        self.active = turn
        turn.pending.append((content, client_id))
        turn.task = asyncio.get_running_loop().create_task(self._run_turn(turn), name=f"turn-{turn.id}")
        return items.turn(turn.id, "inProgress", started_at=None), True

    def shell_command(self, command: str, timeout_ms: int | None) -> None:
        """Run the user's command; inside the active turn if there is one, else in a turn of its own."""
        if not command.strip():
            raise Conflict("command must not be empty")
        if self.active is not None:
            turn = self.active
            task = asyncio.get_running_loop().create_task(self._user_shell(turn, command, timeout_ms))
            self._side_tasks.add(task)
            task.add_done_callback(self._side_tasks.discard)
            return
        turn = ActiveTurn(uuid7(), self._turn_count, now_s(), now_ms())
        self._turn_count += 1
        self.active = turn
        turn.task = asyncio.get_running_loop().create_task(
            self._run_turn(turn, shell=(command, timeout_ms)), name=f"turn-{turn.id}"
        )

    async def _user_shell(self, turn: ActiveTurn, command: str, timeout_ms: int | None) -> None:
        ids = {"threadId": self.record.id, "turnId": turn.id}
        wire = user_shell.item(uuid7(), command, self.settings.cwd)
        await self.sink.emit("item/started", {"item": dict(wire), **ids, "startedAtMs": wire["startedAtMs"]})

        def on_output(text: str) -> None:
            self.sink.emit_transient(
                "item/commandExecution/outputDelta", {**ids, "itemId": wire["id"], "delta": text}
            )

        env = {**self.deps.env, "CODEX_THREAD_ID": self.record.id}
        code, output, duration = await user_shell.run(
            command, self.settings.cwd, env, timeout_ms, on_output, login=self.deps.allow_login_shell
        )
        wire.update(
            status="completed" if code == 0 else "failed",
            exitCode=code,
            aggregatedOutput=output,
            durationMs=duration,
            completedAtMs=now_ms(),
        )
        self._record_history(turn.id, user_shell.history_message(command, code, output))
        self._record_item(turn, wire)
        await self.sink.emit(
            "item/completed",
            {"item": wire, **ids, "completedAtMs": wire["completedAtMs"], "contentTokenCount": None},
            batch=self.take_batch(),
        )

    def start_compact(self) -> None:
        """`thread/compact/start`: a turn of its own that replaces the history with a summary."""
        if self.active is not None:
            raise Conflict("cannot compact while a turn is running; interrupt it or wait for it to finish")
        turn = ActiveTurn(uuid7(), self._turn_count, now_s(), now_ms())
        self._turn_count += 1
        self.active = turn
        turn.task = asyncio.get_running_loop().create_task(
            self._run_turn(turn, compact=True), name=f"turn-{turn.id}"
        )

    async def _compact(self, turn: ActiveTurn) -> None:
        ids = {"threadId": self.record.id, "turnId": turn.id}
        wire = {"type": "contextCompaction", "id": uuid7(), "startedAtMs": now_ms(), "completedAtMs": None}
        await self.sink.emit("item/started", {"item": dict(wire), **ids, "startedAtMs": wire["startedAtMs"]})
        provider = self.deps.provider_for(self.settings.model_provider)
        summary = await compaction.summarize(
            provider,
            self.settings.model,
            context.base_instructions(self.settings),
            normalized(self.history),
            self.record.id,
        )
        initial = context.initial_context(self.settings, self.deps.home, self.deps.agents_max_bytes)
        replacement = compaction.replacement_history(self.history, summary, initial)
        self._record_history(turn.id, {"type": compaction.MARKER, "replacement": replacement})
        self.history = compaction.fold(self.history)
        self._reference = self.settings
        self.usage.reset_last(compaction.estimate_tokens(self.history))
        wire["completedAtMs"] = now_ms()
        self._record_item(turn, wire)
        await self.sink.emit(
            "item/completed",
            {"item": wire, **ids, "completedAtMs": wire["completedAtMs"], "contentTokenCount": None},
            batch=self.take_batch(),
        )
        await self.sink.emit(
            "warning",
            {
                "threadId": self.record.id,
                "message": (
                    "The conversation was compacted to fit the model's context window; the model now works "
                    "from a summary. Long threads lose detail with each compaction: start a new thread for "
                    "new work."
                ),
            },
        )

    def _needs_compaction(self) -> bool:
        limit = compaction.auto_compact_limit(self.deps.context_window, self.deps.auto_compact_token_limit)
        return self.usage.last.total_tokens >= limit

    def note_interrupted(self, turn_id: str) -> None:
        """Tell the model (in the history) that a turn was cut short, e.g. by a daemon crash."""
        self._record_history(turn_id, context.text_message("user", INTERRUPTED_MARKER))

    def steer(self, content: list[dict[str, Any]], expected_turn_id: str, client_id: str | None) -> str:
        self._check_input(content)
        if not content:
            raise Conflict("input must not be empty")
        if self.active is None:
            raise Conflict("no active turn to steer")
        if self.active.id != expected_turn_id:
            raise Conflict(f"expected active turn id `{expected_turn_id}` but found `{self.active.id}`")
        self.active.pending.append((content, client_id))
        return self.active.id

    def interrupt(self, turn_id: str | None) -> asyncio.Task[None]:
        if self.active is None or self.active.task is None:
            raise Conflict("no active turn to interrupt")
        if turn_id and turn_id != self.active.id:
            raise Conflict(f"expected active turn id `{turn_id}` but found `{self.active.id}`")
        task = self.active.task
        task.cancel()
        return task

    async def wait_idle(self) -> None:
        turn = self.active
        if turn is not None and turn.task is not None:
            await asyncio.wait({turn.task})

    # ---- the turn -------------------------------------------------------------------------------

    def _turn_record(self, turn: ActiveTurn, status: str, error: dict[str, Any] | None = None) -> TurnRecord:
        done = status != "inProgress"
        return TurnRecord(
            self.record.id,
            turn.id,
            turn.ordinal,
            status,
            error,
            turn.started_at,
            now_s() if done else None,
            now_ms() - turn.started_mono_ms if done else None,
        )

    def _tool_context(self, turn: ActiveTurn) -> ToolContext:
        return ToolContext(
            thread_id=self.record.id,
            turn_id=turn.id,
            cwd=Path(self.settings.cwd),
            sandbox_policy=self.settings.sandbox_policy,
            sink=self.sink,
            processes=self.processes,
            env={**self.deps.env, "CODEX_THREAD_ID": self.record.id, "TETHER_THREAD_ID": self.record.id},
            gate=self.deps.gate,
            record_item=lambda item: self._record_item(turn, item),
            approval_policy=self.settings.approval_policy,
            ask=self._ask,
            set_flags=self._set_flags,
            approved_for_session=self.approved_for_session,
            allow_login_shell=self.deps.allow_login_shell,
            exec_rules=self.deps.exec_rules,
            private_paths=self.deps.private_paths,
            hidden_paths=self.deps.hidden_paths,
        )

    async def _ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.settings.approvals_reviewer in ("auto_review", "guardian_subagent"):
            return await self._auto_review(method, params)
        if self.deps.approvals_for is None:
            return {"decision": "decline"}
        return await self.deps.approvals_for(self.record.id).request(method, params)

    async def _auto_review(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        provider = self.deps.provider_for(self.settings.model_provider)
        return await self._reviewer.decide(
            method,
            params,
            sink=self.sink,
            provider=provider,
            model=self.settings.model,
            history=self.history,
            cwd=self.settings.cwd,
        )

    async def _set_flags(self, flags: list[str]) -> None:
        if self.active is not None:
            await self.set_status({"type": "active", "activeFlags": flags})

    def _build_request(self, turn: ActiveTurn) -> ModelRequest:
        text: dict[str, Any] | None = None
        if turn.output_schema is not None:
            text = {
                "format": {
                    "type": "json_schema",
                    "strict": True,
                    "schema": turn.output_schema,
                    "name": "tether_output_schema",
                }
            }
        reasoning = None
        if self.settings.effort or self.settings.summary:
            reasoning = {"effort": self.settings.effort or "medium"}
            if self.settings.summary and self.settings.summary != "none":
                reasoning["summary"] = self.settings.summary
        return ModelRequest(
            model=self.settings.model,
            instructions=context.base_instructions(self.settings),
            input=normalized(self.history),
            tools=default_tools(),
            parallel_tool_calls=True,
            reasoning=reasoning,
            text=text,
            prompt_cache_key=self.record.id,
            include=["reasoning.encrypted_content"] if reasoning else [],
            headers={"session_id": self.record.id},
        )

    async def _record_user_input(self, turn: ActiveTurn) -> None:
        """Record every pending input as a user message item (and into the model history)."""
        while turn.pending:
            content, client_id = turn.pending.pop(0)
            item = items.user_message(uuid7(), content, client_id, now_ms())
            await self.sink.emit(
                "item/started",
                {
                    "item": dict(item),
                    "threadId": self.record.id,
                    "turnId": turn.id,
                    "startedAtMs": item["startedAtMs"],
                },
            )
            self._record_history(turn.id, items.user_input_to_model(content))
            item["completedAtMs"] = now_ms()
            self._record_item(turn, item)
            if not self.record.preview:
                self.record.preview = items.text_of(content)[:400]
                self._unsaved.thread = self.record
            await self.sink.emit(
                "item/completed",
                {
                    "item": item,
                    "threadId": self.record.id,
                    "turnId": turn.id,
                    "completedAtMs": item["completedAtMs"],
                    "contentTokenCount": None,
                },
                batch=self.take_batch(),
            )

    def _record_context(self, turn: ActiveTurn) -> None:
        if self._reference is None:
            extra = context.initial_context(self.settings, self.deps.home, self.deps.agents_max_bytes)
        else:
            extra = context.settings_update(self._reference, self.settings)
        for entry in extra:
            self._record_history(turn.id, entry)
        self._reference = self.settings

    async def _run_turn(
        self, turn: ActiveTurn, shell: tuple[str, int | None] | None = None, compact: bool = False
    ) -> None:
        status, error, final = "completed", None, None
        try:
            await self.set_status({"type": "active", "activeFlags": []})
            self.materialized = True
            self.record.updated_at = self.record.recency_at = now_s()
            self.record.settings = self.settings.to_json()
            self._unsaved.thread = self.record
            self._unsaved.turns.append(self._turn_record(turn, "inProgress"))
            started = items.turn(turn.id, "inProgress", started_at=turn.started_at)
            await self.sink.emit("turn/started", {"threadId": self.record.id, "turn": started})
            self._record_context(turn)
            if shell is not None:
                await self._user_shell(turn, *shell)
            elif compact:
                await self._compact(turn)
            else:
                final = await self._loop(turn)
        except (asyncio.CancelledError, TurnCancelled):
            status = "interrupted"
            self._record_history(turn.id, context.text_message("user", INTERRUPTED_MARKER))
        except ProviderError as exc:
            status = "failed"
            error = items.turn_error(exc.message, exc.codex_error_info, exc.additional_details)
        except ConfigError as exc:  # e.g. the provider's API key is not set
            status, error = "failed", items.turn_error(exc.message, "unauthorized")
        except TetherError as exc:
            status, error = "failed", items.turn_error(exc.message)
        except Exception as exc:  # noqa: BLE001 - the thread task is a supervisor boundary
            _log.exception("turn.crashed", thread_id=self.record.id, turn_id=turn.id)
            status, error = "failed", items.turn_error(f"internal error: {type(exc).__name__}")
        await asyncio.shield(self._finish(turn, status, error, final))

    async def _loop(self, turn: ActiveTurn) -> dict[str, Any] | None:
        final: dict[str, Any] | None = None
        tools = self._tool_context(turn)
        run = TurnRun(
            thread_id=self.record.id,
            turn_id=turn.id,
            provider=self.deps.provider_for(self.settings.model_provider),
            sink=self.sink,
            tools=tools,
            build_request=lambda: self._build_request(turn),
            record_history=lambda item: self._record_history(turn.id, item),
            on_usage=self.usage.add,
            stream_max_retries=self.deps.stream_max_retries,
        )
        if self._needs_compaction():
            await self._compact(turn)
        while True:
            await self._record_user_input(turn)
            result: SamplingResult = await sample_with_retries(run)
            final = result.last_agent_message or final
            if not result.needs_follow_up and not turn.pending:
                return final
            if self._needs_compaction():
                await self._compact(turn)

    async def _finish(
        self, turn: ActiveTurn, status: str, error: dict[str, Any] | None, final: dict[str, Any] | None
    ) -> None:
        if status == "interrupted":
            await self.processes.close()
        tid = self.record.id
        if error is not None:
            await self.set_status({"type": "systemError"})
            await self.sink.emit(
                "error", {"error": error, "willRetry": False, "threadId": tid, "turnId": turn.id}
            )
        else:
            await self.set_status({"type": "idle"})
        record = self._turn_record(turn, status, error)
        self._unsaved.turns.append(record)
        self.record.updated_at = now_s()
        self._unsaved.thread = self.record
        summary = [final] if final is not None and status == "completed" else []
        done = items.turn(
            turn.id,
            status,
            started_at=turn.started_at,
            completed_at=record.completed_at,
            duration_ms=record.duration_ms,
            error=error,
            items=summary,
            items_view="summary" if summary else "notLoaded",
        )
        self.active = None
        await self.sink.emit("turn/completed", {"threadId": tid, "turn": done}, batch=self.take_batch())
