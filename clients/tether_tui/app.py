"""The Textual app: owns the SDK client, the screen stack and the approval prompts.

The app is handed a connected `tether_client.Client` (spawned over stdio or attached to a
daemon) and never closes it; whoever opened it does. Server requests that need a person (command
and patch approvals) are answered later from a modal (`DEFERRED`); everything else gets the SDK's
safe default. Approvals are shown one at a time; one answered elsewhere (another client sharing
the thread) disappears when `serverRequest/resolved` arrives.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

from textual import work
from textual.app import App
from textual.message import Message

from tether_client import DEFERRED, Client, Deferred, ServerRequest, TetherClientError
from tether_protocol.jsonrpc import RequestId
from tether_tui.items import Item
from tether_tui.screens.approval import APPROVAL_METHODS, ApprovalScreen
from tether_tui.screens.thread_list import ThreadListScreen
from tether_tui.screens.thread_view import ThreadViewScreen


class ApprovalRequested(Message):
    """The server asked for an approval (posted from the SDK's handler into the UI loop)."""

    def __init__(self, request: ServerRequest) -> None:
        super().__init__()
        self.request = request


class TetherApp(App[None]):
    """Tether's terminal UI over one app-server connection.

    Args:
        client: an initialized client; the app sets its approval handler.
        cwd: working directory for new threads (None: the server's default).
        config: config overrides sent with `thread/start` and `thread/resume`.
    """

    TITLE = "tether"

    def __init__(
        self, client: Client, *, cwd: str | None = None, config: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__()
        self.client = client
        self.cwd = cwd
        self.config_overrides = dict(config or {})
        self.approval: ApprovalScreen | None = None
        """The approval prompt on screen, if any."""
        self._approvals: deque[ServerRequest] = deque()
        self._previous_handler = client.approval_handler
        client.approval_handler = self._on_server_request

    def on_mount(self) -> None:
        self.push_screen(ThreadListScreen())
        self._watch_resolutions()

    def on_unmount(self) -> None:
        # The client may outlive the app (embedding); requests must not reach a UI that is gone.
        self.client.approval_handler = self._previous_handler

    def open_thread(self, thread_id: str | None) -> None:
        """Show a thread: resume `thread_id`, or start a new one when None."""
        self.push_screen(ThreadViewScreen(thread_id))

    def thread_start_params(self) -> dict[str, Any]:
        """`thread/start` params for a new thread."""
        params: dict[str, Any] = {"cwd": self.cwd} if self.cwd else {}
        return params | self._config_param()

    def thread_resume_params(self, thread_id: str) -> dict[str, Any]:
        """`thread/resume` params; history is paged separately with `thread/turns/list`."""
        return {"threadId": thread_id, "excludeTurns": True} | self._config_param()

    def _config_param(self) -> dict[str, Any]:
        return {"config": self.config_overrides} if self.config_overrides else {}

    # ---- approvals -------------------------------------------------------------------------------

    async def _on_server_request(self, request: ServerRequest) -> Deferred | None:
        if request.method not in APPROVAL_METHODS:
            return None  # the SDK's safe default
        self.post_message(ApprovalRequested(request))
        return DEFERRED

    def on_approval_requested(self, message: ApprovalRequested) -> None:
        self._approvals.append(message.request)
        self._show_next_approval()

    def _show_next_approval(self) -> None:
        if self.approval is not None or not self._approvals:
            return
        request = self._approvals.popleft()
        self.approval = ApprovalScreen(request, self._item_of(request))
        self.push_screen(self.approval, lambda decision: self._decided(request, decision))

    def _item_of(self, request: ServerRequest) -> Item | None:
        for screen in self.screen_stack:
            if isinstance(screen, ThreadViewScreen) and screen.thread_id == request.params.get("threadId"):
                return screen.item(str(request.params.get("itemId")))
        return None

    def item_changed(self, thread_id: str | None, item: Item) -> None:
        """A thread view shows a new version of `item`; the open prompt may be about it."""
        shown = self.approval
        if shown is None:
            return
        params = shown.request.params
        if (params.get("threadId"), params.get("itemId")) == (thread_id, item.get("id")):
            shown.show_item(item)

    def _decided(self, request: ServerRequest, decision: str | None) -> None:
        self.approval = None
        if decision is not None:
            self._answer(request, decision)
        self._show_next_approval()

    @work(group="answers")
    async def _answer(self, request: ServerRequest, decision: str) -> None:
        try:
            await self.client.respond(request.id, {"decision": decision})
        except TetherClientError as exc:
            self.notify(f"could not answer the approval: {exc}", severity="error")

    @work(exclusive=True, group="resolutions")
    async def _watch_resolutions(self) -> None:
        with self.client.notifications(lambda n: n.method == "serverRequest/resolved") as stream:
            async for note in stream:
                self._resolved(note.params.get("requestId"))
        self.sub_title = "disconnected"
        self.notify("the connection to the app-server is closed", severity="error", timeout=30)

    def _resolved(self, request_id: RequestId | None) -> None:
        """Forget a request answered by anyone; close its prompt if it is on screen."""
        self._approvals = deque(r for r in self._approvals if r.id != request_id)
        shown = self.approval
        # Only the top screen can be dismissed; a prompt under another screen is left to the user.
        if shown is not None and shown.request.id == request_id and shown.is_current:
            shown.dismiss(None)
