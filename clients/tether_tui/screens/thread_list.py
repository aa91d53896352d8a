"""The thread list: search the server's threads, resume one or start a new one."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList
from textual.widgets.option_list import Option

from tether_client import TetherClientError

if TYPE_CHECKING:
    from tether_tui.app import TetherApp

NEW_THREAD = "__new__"
_PAGE = 50


def thread_label(thread: Mapping[str, Any], now: float | None = None) -> Content:
    """One row of the list: the preview (or name), how long ago it changed, and its directory."""
    title = str(thread.get("name") or thread.get("preview") or thread.get("id", "")).splitlines()
    age = _age((now or time.time()) - float(thread.get("updatedAt") or 0))
    return Content.assemble(
        ((title[0] if title else "")[:80], "bold"), (f"  {age} · {thread.get('cwd', '')}", "$text-muted")
    )


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


class ThreadListScreen(Screen[None]):
    """Threads from `thread/list` (filtered by the search box), newest first, under "New thread"."""

    DEFAULT_CSS = """
    ThreadListScreen #search { dock: top; }
    ThreadListScreen OptionList { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "new_thread", "New thread"),
        Binding("ctrl+r", "refresh", "Refresh"),
        Binding("down", "focus_list", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[dict[str, Any]] = []
        """The threads listed now, as wire dicts."""
        self.loaded = False
        """True once the first listing has arrived."""

    @property
    def tether(self) -> TetherApp:
        from tether_tui.app import TetherApp

        assert isinstance(self.app, TetherApp)
        return self.app

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search threads…", id="search")
        yield OptionList(id="threads")
        yield Footer()

    def on_screen_resume(self) -> None:
        self.refresh_threads()

    def action_refresh(self) -> None:
        self.refresh_threads()

    def action_focus_list(self) -> None:
        """Down from the search box moves into the list."""
        self.query_one(OptionList).focus()

    def action_new_thread(self) -> None:
        self.tether.open_thread(None)

    @on(Input.Changed, "#search")
    def _search_changed(self) -> None:
        self.refresh_threads()

    @on(Input.Submitted, "#search")
    def _search_submitted(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        chosen = event.option.id
        self.tether.open_thread(None if chosen == NEW_THREAD else chosen)

    def refresh_threads(self) -> None:
        """List the threads again (with the current search term)."""
        self._load(self.query_one("#search", Input).value.strip())

    @work(exclusive=True, group="thread-list")
    async def _load(self, search: str) -> None:
        params: dict[str, Any] = {"limit": _PAGE, "sortKey": "updated_at"}
        if search:
            params["searchTerm"] = search
        try:
            result = await self.tether.client.request_raw("thread/list", params)
        except TetherClientError as exc:
            self.notify(f"thread/list failed: {exc}", severity="error")
            return
        self.threads = list(result.get("data") or [])
        self._show()
        self.loaded = True

    def _show(self) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        options.add_option(Option(Content.styled("+ New thread", "bold $accent"), id=NEW_THREAD))
        options.add_options(Option(thread_label(t), id=str(t["id"])) for t in self.threads)
        options.highlighted = min(highlighted or 0, len(self.threads))
