"""A loaded thread's state and its turns: start, steer, interrupt. Owned by one ThreadHandle.

The parts live beside it: `recorder` (history, items, the pending batch), `turn_runner` (one turn
from start to finish), `compaction` and `user_shell` (the other kinds of turn work).
"""

from __future__ import annotations

import asyncio
from typing import Any

from tether_server.core import compaction, context, items, review_mode, turn_runner, user_shell
from tether_server.core import events as ev
from tether_server.core.dynamic_calls import DynamicTools
from tether_server.core.ports import EventSink
from tether_server.core.recorder import ThreadRecorder
from tether_server.core.review import AutoReviewer
from tether_server.core.settings import TurnSettings
from tether_server.core.turn_runner import INTERRUPTED_MARKER, TurnWork
from tether_server.core.turn_scope import ActiveTurn, SessionDeps, TurnScope, new_turn
from tether_server.core.usage import UsageTracker
from tether_server.errors import Conflict
from tether_server.store.base import StoredHistory, ThreadRecord
from tether_server.tools.exec.sessions import ProcessSessions

__all__ = ["INTERRUPTED_MARKER", "SessionDeps", "ThreadSession"]


class ThreadSession:
    """State of one loaded thread. Only its handle calls it, on the event loop, so no locks."""

    def __init__(
        self,
        record: ThreadRecord,
        settings: TurnSettings,
        sink: EventSink,
        deps: SessionDeps,
        *,
        history: list[dict[str, Any]] | StoredHistory | None = None,
        turn_count: int = 0,
        item_count: int = 0,
        ephemeral: bool = False,
    ) -> None:
        self.recorder = ThreadRecorder(
            record,
            deps.item_json,
            history=history,
            turn_count=turn_count,
            item_count=item_count,
            ephemeral=ephemeral,
        )
        self.settings = settings
        self.sink = sink
        self.deps = deps
        # The settings the model last heard about (None: it has not heard the environment yet).
        self.reference: TurnSettings | None = settings if history else None
        self.usage = UsageTracker(self.context_window())  # asking starts a server's window being read
        self.active: ActiveTurn | None = None
        self.status = ev.IDLE
        self.processes = ProcessSessions()
        self.approved_for_session: set[str] = set()
        self._reviewer = AutoReviewer()
        self._side_tasks: set[asyncio.Task[None]] = set()
        self.dynamic: DynamicTools | None = None  # the tools the client declared on thread/start
        self.hooks_session_started = False

    @property
    def thread_id(self) -> str:
        return self.recorder.record.id

    @property
    def record(self) -> ThreadRecord:
        return self.recorder.record

    @property
    def ephemeral(self) -> bool:
        return self.recorder.ephemeral

    async def set_status(self, status: ev.ThreadStatus) -> None:
        if status == self.status:
            return
        self.status = status
        await self.sink.emit(ev.ThreadStatusChanged(self.thread_id, status))

    async def set_flags(self, flags: list[str]) -> None:
        if self.active is not None:
            await self.set_status(ev.ThreadStatus.active(*flags))

    # ---- turn control ---------------------------------------------------------------------------

    def begin_turn(
        self, work: TurnWork, output_schema: dict[str, Any] | None = None, *, released: bool = True
    ) -> ActiveTurn:
        """The one way a turn starts: it becomes the active turn and its task runs `work`.

        With `released=False` the task waits for `turn.released`, so the caller can make the turn
        durable and answer before the turn's first event.
        """
        if self.active is not None:
            raise Conflict("a turn is already running")
        turn = new_turn(self.recorder.next_turn_ordinal(), output_schema)
        self.active = turn
        turn_runner.open_turn(self, turn)
        if released:
            turn.released.set()
        turn.task = asyncio.get_running_loop().create_task(
            turn_runner.run_turn(self, turn, work), name=f"turn-{turn.id}"
        )
        return turn

    def start_turn(
        self,
        content: list[dict[str, Any]],
        client_id: str | None,
        settings: TurnSettings,
        output_schema: dict[str, Any] | None = None,
        *,
        released: bool = True,
    ) -> tuple[ActiveTurn, bool]:
        """Start a turn, or steer into the active one (Codex). Returns (the turn, started_new)."""
        _check_input(content)
        self.settings = settings
        if self.active is not None:
            _check_steerable(self.active)
            self.active.pending.append((content, client_id))
            self.active.steered.set()
            return self.active, False
        turn = self.begin_turn(turn_runner.sample_until_done, output_schema, released=released)
        turn.pending.append((content, client_id))  # the task has not run yet: it sees this input
        return turn, True

    def start_goal_turn(self, note: str) -> ActiveTurn:
        """A turn no one typed: the active goal's `note` reaches the model as context, then it works.

        No user message item: the turn's items are only what the agent does, as in Codex.
        """

        async def work(session: TurnScope, turn: ActiveTurn) -> items.AgentMessage | None:
            session.recorder.history_entry(turn.id, context.text_message("user", note))
            return await turn_runner.sample_until_done(session, turn)

        return self.begin_turn(work)

    def shell_command(self, command: str, timeout_ms: int | None) -> None:
        """Run the user's command; inside the active turn if there is one, else in a turn of its own."""
        if not command.strip():
            raise Conflict("command must not be empty")
        if self.active is None:
            self.begin_turn(lambda session, turn: user_shell.run_in_turn(session, turn, command, timeout_ms))
            return
        task = asyncio.get_running_loop().create_task(
            user_shell.run_in_turn(self, self.active, command, timeout_ms)
        )
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    def start_compact(self) -> None:
        """`thread/compact/start`: a turn of its own that replaces the history with a summary."""
        if self.active is not None:
            raise Conflict("cannot compact while a turn is running; interrupt it or wait for it to finish")
        self.begin_turn(compaction.run_in_turn).kind = "compact"

    def start_review(self, job: review_mode.ReviewJob, *, released: bool = True) -> ActiveTurn:
        """`review/start`: a turn of its own that reviews the changes `job` describes."""
        if self.active is not None:
            raise Conflict(
                "cannot start a review while a turn is running; interrupt it or wait for it to finish"
            )
        turn = self.begin_turn(
            lambda session, turn: review_mode.run_in_turn(session, turn, job), released=released
        )
        turn.kind = "review"
        return turn

    def context_window(self) -> int | None:
        """The window the thread's model works in: configured, else its server's, else the default."""
        served = self.deps.served_window
        if served is not None:
            window = served(self.settings.model_provider, self.settings.model)
            if window:
                return window
        return self.deps.context_window

    def needs_compaction(self) -> bool:
        # Learned in the background, the server's window may have arrived since the last check.
        self.usage.context_window = self.context_window()
        limit = compaction.auto_compact_limit(self.usage.context_window, self.deps.auto_compact_token_limit)
        return self.usage.last.total_tokens >= limit

    def note_interrupted(self, turn_id: str) -> None:
        """Tell the model (in the history) that a turn was cut short, e.g. by a daemon crash."""
        self.recorder.history_entry(turn_id, context.text_message("user", INTERRUPTED_MARKER))

    def steer(self, content: list[dict[str, Any]], expected_turn_id: str, client_id: str | None) -> str:
        _check_input(content)
        if not content:
            raise Conflict("input must not be empty")
        if self.active is None:
            raise Conflict("no active turn to steer")
        if self.active.id != expected_turn_id:
            raise Conflict(f"expected active turn id `{expected_turn_id}` but found `{self.active.id}`")
        _check_steerable(self.active)
        self.active.pending.append((content, client_id))
        self.active.steered.set()
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

    # ---- approvals ------------------------------------------------------------------------------

    async def ask(self, ask: ev.ApprovalAsk) -> ev.ApprovalAnswer:
        """Put an approval to the automatic reviewer or to the clients (none: declined)."""
        if self.settings.approvals_reviewer in ("auto_review", "guardian_subagent"):
            return await self._reviewer.decide(
                ask,
                sink=self.sink,
                provider=self.deps.provider_for(self.settings.model_provider),
                model=self.settings.model,
                history=self.recorder.history,
                cwd=self.settings.cwd,
            )
        if self.deps.approvals_for is None:
            return ev.ApprovalAnswer("decline")
        return await self.deps.approvals_for(self.thread_id).request(ask)

    async def ask_user(self, ask: ev.UserInputAsk) -> ev.UserInputAnswer:
        """Put the model's questions to the clients: only a person answers them, never a reviewer."""
        if self.deps.approvals_for is None:
            return ev.UserInputAnswer(None)
        return await self.deps.approvals_for(self.thread_id).request_user_input(ask)


def _check_steerable(turn: ActiveTurn) -> None:
    if turn.kind is not None:
        raise Conflict(
            f"cannot steer a {turn.kind} turn; wait for it to finish or interrupt it",
            data={"codexErrorInfo": {"activeTurnNotSteerable": {"turnKind": turn.kind}}},
        )


def _check_input(content: list[dict[str, Any]]) -> None:
    for entry in content:
        url = entry.get("url")
        if entry.get("type") == "image" and isinstance(url, str) and url.startswith(("http://", "https://")):
            raise Conflict("remote image URLs are not supported; use an inline data URL instead")
