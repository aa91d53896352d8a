"""The thread view: the transcript (history, then live), a prompt box and a status footer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from tether_client import Notification, TetherClientError
from tether_client.turns import user_input
from tether_tui.items import (
    DELTA_METHODS,
    Item,
    apply_delta,
    render_item,
    render_plan,
    render_usage,
    user_text,
)

if TYPE_CHECKING:
    from tether_tui.app import TetherApp

_HISTORY_PAGES = 50
_HISTORY_PAGE_SIZE = 50


class Entry(Static):
    """One block of the transcript (an item, a plan, an error)."""

    DEFAULT_CSS = """
    Entry { margin: 0 0 1 0; }
    Entry.error { color: $error; }
    """


class ThreadViewScreen(Screen[None]):
    """One thread: loads its history, then follows it live and sends what the user types.

    Attributes:
        thread_id: the thread (None until `thread/start` answers for a new thread).
        items: every item shown, by id, as wire dicts grown by deltas.
        active_turn_id: the running turn, if any.
        last_turn_status: how the last turn seen ended (`completed`, `interrupted`, `failed`).
        ready: True once the thread is started or resumed and its history shown.
        steered: inputs steered into the running turn that the agent has not picked up yet.
    """

    DEFAULT_CSS = """
    ThreadViewScreen #transcript { height: 1fr; padding: 0 1; }
    ThreadViewScreen #status { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    ThreadViewScreen #prompt { dock: bottom; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt"),
        Binding("ctrl+c", "interrupt", "Interrupt", show=False, priority=True),
        Binding("ctrl+t", "threads", "Threads"),
    ]

    def __init__(self, thread_id: str | None) -> None:
        super().__init__()
        self.thread_id = thread_id
        self.items: dict[str, Item] = {}
        self.active_turn_id: str | None = None
        self.last_turn_status: str | None = None
        self.ready = False
        self.steered: list[str] = []
        self._entries: dict[str, Entry] = {}
        self._contents: dict[str, Content] = {}
        self._finished_turns: set[str] = set()
        self._usage = ""
        self._handlers: Mapping[str, Callable[[dict[str, Any]], None]] = {
            "item/started": self._on_item,
            "item/completed": self._on_item,
            "turn/started": self._on_turn_started,
            "turn/completed": self._on_turn_completed,
            "turn/plan/updated": self._on_plan,
            "thread/tokenUsage/updated": self._on_usage,
            "error": self._on_error,
        }

    @property
    def tether(self) -> TetherApp:
        from tether_tui.app import TetherApp

        assert isinstance(self.app, TetherApp)
        return self.app

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="transcript")
        yield Static(id="status")
        yield Input(placeholder="Ask the agent… (Enter sends, Esc interrupts)", id="prompt")
        yield Footer()

    def on_mount(self) -> None:
        self._show_status()
        self.query_one("#prompt", Input).focus()
        self._follow()

    def transcript_text(self) -> str:
        """The transcript as plain text (what the user reads, without colours)."""
        return "\n".join(content.plain for content in self._contents.values())

    def item(self, item_id: str) -> Item | None:
        """An item of this thread, as shown now."""
        return self.items.get(item_id)

    # ---- the thread's stream ---------------------------------------------------------------------

    def _mine(self, note: Notification) -> bool:
        return self.thread_id is not None and note.thread_id == self.thread_id

    @work(exclusive=True, group="thread-stream")
    async def _follow(self) -> None:
        # Subscribe before start/resume so nothing the server sends in between is lost.
        with self.tether.client.notifications(self._mine) as stream:
            try:
                await self._open()
            except TetherClientError as exc:
                self.notify(f"cannot open the thread: {exc}", severity="error")
                return
            self.ready = True
            self._show_status()
            async for note in stream:
                self.apply(note)

    async def _open(self) -> None:
        client = self.tether.client
        if self.thread_id is None:
            started = await client.request_raw("thread/start", self.tether.thread_start_params())
            self.thread_id = str(started["thread"]["id"])
            return
        await client.request_raw("thread/resume", self.tether.thread_resume_params(self.thread_id))
        await self._load_history()

    async def _load_history(self) -> None:
        """Every turn so far, oldest first, a page at a time."""
        client = self.tether.client
        cursor: str | None = None
        for _ in range(_HISTORY_PAGES):
            params: dict[str, Any] = {"threadId": self.thread_id, "sortDirection": "asc", "itemsView": "full"}
            params |= {"limit": _HISTORY_PAGE_SIZE} | ({"cursor": cursor} if cursor else {})
            page = await client.request_raw("thread/turns/list", params)
            for turn in page.get("data") or []:
                self._show_turn(turn)
            cursor = page.get("nextCursor")
            if not cursor:
                break

    def _show_turn(self, turn: Mapping[str, Any]) -> None:
        for item in turn.get("items") or []:
            self._upsert(dict(item))
        if turn.get("status") == "inProgress":
            self.active_turn_id = str(turn["id"])
        else:
            self.last_turn_status = str(turn.get("status"))

    def apply(self, note: Notification) -> None:
        """Show one notification of this thread."""
        handler = self._handlers.get(note.method)
        if handler is not None:
            handler(note.params)
        elif note.method in DELTA_METHODS:
            item = self.items.get(str(note.params.get("itemId")))
            if item is not None:
                apply_delta(item, note.method, note.params)
                self._redraw(item)
        self._show_status()

    # ---- notification handlers -------------------------------------------------------------------

    def _on_item(self, params: dict[str, Any]) -> None:
        item = dict(params["item"])
        if item.get("type") == "userMessage" and user_text(item) in self.steered:
            self.steered.remove(user_text(item))
        self._upsert(item)

    def _on_turn_started(self, params: dict[str, Any]) -> None:
        turn_id = str(params["turn"]["id"])
        if turn_id not in self._finished_turns:
            self.active_turn_id = turn_id

    def _on_turn_completed(self, params: dict[str, Any]) -> None:
        turn = params["turn"]
        self._finished_turns.add(str(turn["id"]))
        if self.active_turn_id == turn["id"]:
            self.active_turn_id = None
        self.last_turn_status = str(turn.get("status"))
        error = turn.get("error")
        if error:
            self._note(f"turn {turn['id']}:error", f"turn {self.last_turn_status}: {error.get('message')}")

    def _on_plan(self, params: dict[str, Any]) -> None:
        plan = render_plan(params.get("explanation"), list(params.get("plan") or []))
        self._place(f"plan:{params.get('turnId')}", plan)

    def _on_usage(self, params: dict[str, Any]) -> None:
        self._usage = render_usage(params.get("tokenUsage") or {})

    def _on_error(self, params: dict[str, Any]) -> None:
        error = params.get("error") or {}
        retry = " (retrying)" if params.get("willRetry") else ""
        self._note(f"error:{len(self._entries)}", f"error: {error.get('message')}{retry}")

    # ---- drawing ---------------------------------------------------------------------------------

    def _upsert(self, item: Item) -> None:
        item_id = str(item.get("id"))
        self.items[item_id] = item
        self._redraw(item)
        self.tether.item_changed(self.thread_id, item)

    def _redraw(self, item: Item) -> None:
        self._place(f"item:{item.get('id')}", render_item(item))

    def _note(self, key: str, text: str) -> None:
        self._place(key, Content(text)).add_class("error")

    def _place(self, key: str, content: Content) -> Entry:
        self._contents[key] = content
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = Entry(content)
            self.query_one("#transcript", VerticalScroll).mount(entry)
        else:
            entry.update(content)
        self.query_one("#transcript", VerticalScroll).scroll_end(animate=False)
        return entry

    def _show_status(self) -> None:
        if not self.ready:
            state = "opening…"
        elif self.active_turn_id:
            queued = f", {len(self.steered)} steered message(s) queued" if self.steered else ""
            state = f"working{queued}… (Esc to interrupt)"
        else:
            state = f"last turn {self.last_turn_status}" if self.last_turn_status else "ready"
        thread = self.thread_id or "new thread"
        parts = [thread, state, self._usage] if self._usage else [thread, state]
        self.query_one("#status", Static).update(Content(" · ".join(parts)))

    # ---- user actions ----------------------------------------------------------------------------

    @on(Input.Submitted, "#prompt")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or not self.ready:
            return
        event.input.clear()
        self._send(text)

    @work(group="send")
    async def _send(self, text: str) -> None:
        client = self.tether.client
        params: dict[str, Any] = {"threadId": self.thread_id, "input": user_input(text)}
        try:
            if self.active_turn_id is not None:
                await client.request_raw("turn/steer", params | {"expectedTurnId": self.active_turn_id})
                self.steered.append(text)
                self._show_status()
                return
            started = await client.request_raw("turn/start", params)
        except TetherClientError as exc:
            self.notify(str(exc), severity="error")
            return
        self._on_turn_started(started)
        self._show_status()

    def action_interrupt(self) -> None:
        """Stop the running turn (its `turn/completed` follows with status `interrupted`)."""
        if self.active_turn_id is not None:
            self._interrupt(self.active_turn_id)

    @work(group="interrupt")
    async def _interrupt(self, turn_id: str) -> None:
        assert self.thread_id is not None
        try:
            await self.tether.client.interrupt_turn(self.thread_id, turn_id)
        except TetherClientError as exc:
            self.notify(f"interrupt failed: {exc}", severity="warning")

    def action_threads(self) -> None:
        """Back to the thread list."""
        self.app.pop_screen()
