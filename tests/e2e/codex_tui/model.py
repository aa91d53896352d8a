"""The fake model as the Codex TUI meets it: the TUI's own side requests are answered aside.

On a thread's first message the TUI starts an ephemeral thread of its own to name the task; its
model request would take the next scripted answer in whatever order the two requests arrive.
`TuiFakeModel` answers those title requests itself, so the script holds only the user's turns.
"""

from __future__ import annotations

import asyncio
import json

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer, RecordedRequest

TITLE_REQUEST = "Generate a concise, single-line task title"
TITLE = script.text_reply("A task title")


class TuiFakeModel(FakeResponsesServer):
    """A `FakeResponsesServer` that answers the TUI's title requests out of script."""

    async def _answer_model_request(self, writer: asyncio.StreamWriter, request: RecordedRequest) -> None:
        if TITLE_REQUEST in json.dumps(request.body.get("input")):
            await self._stream(writer, TITLE, len(request.raw_body))
            return
        await super()._answer_model_request(writer, request)
