"""One turn as a stream: start it, yield its notifications, end at its `turn/completed`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from tether_client.errors import TransportClosed
from tether_client.messages import Notification
from tether_protocol.v2.inputs import TextInput, UserInput
from tether_protocol.v2.turn import Turn

if TYPE_CHECKING:
    from tether_client.client import Client

TurnInput = str | Sequence[UserInput | dict[str, Any]]
"""Text, or a list of UserInput items (models or their wire dicts)."""

_INPUTS: TypeAdapter[list[UserInput]] = TypeAdapter(list[UserInput])


def user_input(value: TurnInput) -> list[dict[str, Any]]:
    """The wire `input` list of a turn."""
    if isinstance(value, str):
        return [TextInput(text=value).wire()]
    items = _INPUTS.validate_python([v.wire() if hasattr(v, "wire") else v for v in value])
    return [item.wire() for item in items]


class TurnStream:
    """Async iterator over one turn's notifications; the last one is its `turn/completed`.

    Attributes:
        thread_id: the thread.
        turn_id: set once `turn/start` has answered.
        turn: the final Turn (from `turn/completed`), None until then.
        final_message: text of the last agent message completed in the turn, if any.
        items: every item completed in the turn, as wire dicts, in order.
    """

    def __init__(self, client: Client, thread_id: str, input: TurnInput, fields: dict[str, Any]) -> None:
        self._client = client
        self.thread_id = thread_id
        self._input = input
        self._fields = fields
        self._subscription = client.notifications(lambda n: n.thread_id == thread_id)
        self.turn_id: str | None = None
        self.turn: Turn | None = None
        self.final_message: str | None = None
        self.items: list[dict[str, Any]] = []

    @property
    def status(self) -> str | None:
        """`completed`, `interrupted` or `failed` once over; None while running."""
        return self.turn.status if self.turn else None

    async def start(self) -> str:
        """Send `turn/start` (iteration does this itself); returns the turn id."""
        if self.turn_id is None:
            try:
                response = await self._client.start_turn(self.thread_id, self._input, **self._fields)
            except BaseException:
                self._subscription.close()
                raise
            self.turn_id = response.turn.id
        return self.turn_id

    async def interrupt(self) -> None:
        """Ask the server to stop the turn; iteration goes on until its `turn/completed`."""
        if self.turn_id is not None and self.turn is None:
            await self._client.interrupt_turn(self.thread_id, self.turn_id)

    async def wait(self) -> Turn:
        """Run the turn to its end, dropping the notifications; returns the final Turn."""
        async for _ in self:
            pass
        assert self.turn is not None
        return self.turn

    def __aiter__(self) -> TurnStream:
        return self

    async def __anext__(self) -> Notification:
        if self.turn is not None:
            raise StopAsyncIteration
        await self.start()
        while True:
            notification = await self._subscription.next()
            if notification is None:
                raise TransportClosed("connection closed before the turn completed")
            if notification.turn_id not in (None, self.turn_id):
                continue
            self._observe(notification)
            return notification

    def _observe(self, notification: Notification) -> None:
        params = notification.params
        if notification.method == "item/completed":
            item = params.get("item") or {}
            self.items.append(item)
            if item.get("type") == "agentMessage":
                self.final_message = item.get("text")
        elif notification.method == "turn/completed":
            self.turn = Turn.model_validate(params["turn"])
            self._subscription.close()
