"""The approval prompt: a modal asking whether a command may run or a patch may be applied."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from tether_client import ServerRequest
from tether_tui.items import render_file_change

COMMAND_APPROVAL = "item/commandExecution/requestApproval"
FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval"
APPROVAL_METHODS = frozenset({COMMAND_APPROVAL, FILE_CHANGE_APPROVAL})

DECISIONS: tuple[tuple[str, str, str], ...] = (
    ("accept", "Yes (y)", "success"),
    ("acceptForSession", "Yes, this session (a)", "primary"),
    ("decline", "No (n)", "warning"),
    ("cancel", "No, stop the turn (esc)", "error"),
)


def describe(request: ServerRequest, item: Mapping[str, Any] | None) -> Content:
    """What is being asked, from the request (and, for patches, the item it refers to)."""
    params = request.params
    parts: list[str | tuple[str, str] | Content] = []
    if request.method == COMMAND_APPROVAL:
        parts += [("$ ", "bold $success"), (str(params.get("command") or ""), "bold")]
        if params.get("cwd"):
            parts.append((f"\nin {params['cwd']}", "$text-muted"))
    elif item is not None:
        parts.append(render_file_change(item))
    else:
        parts.append(("file changes (not shown)", "$text-muted"))
    if params.get("reason"):
        parts.append((f"\n\n{params['reason']}", "italic"))
    return Content.assemble(*parts)


class ApprovalScreen(ModalScreen[str | None]):
    """Asks one approval question; dismissed with the decision, or None when answered elsewhere."""

    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    ApprovalScreen #question { text-style: bold; margin-bottom: 1; }
    ApprovalScreen VerticalScroll { height: auto; max-height: 20; }
    ApprovalScreen Horizontal { height: auto; margin-top: 1; }
    ApprovalScreen Button { margin-right: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "decide('accept')", "Yes"),
        Binding("a", "decide('acceptForSession')", "Yes, this session"),
        Binding("n", "decide('decline')", "No"),
        Binding("escape", "decide('cancel')", "Stop the turn"),
    ]

    def __init__(self, request: ServerRequest, item: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.request = request
        self._item = item

    def compose(self) -> ComposeResult:
        question = "Run this command?" if self.request.method == COMMAND_APPROVAL else "Apply these changes?"
        with Vertical():
            yield Label(question, id="question")
            with VerticalScroll():
                yield Static(describe(self.request, self._item), id="details")
            with Horizontal():
                for decision, label, variant in DECISIONS:
                    yield Button(label, id=decision, variant=variant)  # type: ignore[arg-type]

    def show_item(self, item: Mapping[str, Any]) -> None:
        """Show the item the request is about (its diff may arrive after the request)."""
        self._item = item
        if self.is_mounted:
            self.query_one("#details", Static).update(describe(self.request, item))

    def action_decide(self, decision: str) -> None:
        """Answer with `decision` (accept, acceptForSession, decline or cancel)."""
        self.dismiss(decision)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id)
