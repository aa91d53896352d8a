"""The project's scripted fake model, with a log of what each model request was answered with."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tether_testing import FakeResponsesServer, RecordedRequest
from tether_testing.script import ScriptedResponse


class RecordingFake(FakeResponsesServer):
    """`FakeResponsesServer` that also notes, per model request, its arrival time, which script entry
    answered it, with which status, and whether the answer was played to its end."""

    def __init__(self, script: list[ScriptedResponse]) -> None:
        super().__init__(script)
        self._entries = list(script)
        self.log: list[dict[str, Any]] = []

    async def _answer_model_request(self, writer: asyncio.StreamWriter, request: RecordedRequest) -> None:
        entry = self.served if self.served < len(self._entries) else None
        status = 500 if entry is None else int(self._entries[entry].get("status", 200))
        record: dict[str, Any] = {
            "seq": len(self.log) + 1,
            "ts": time.time(),
            "method": request.method,
            "path": request.path,
            "query": request.query,
            "body": request.body,
            "kind": "responses",
        }
        self.log.append(record)
        end = "completed"
        try:
            await super()._answer_model_request(writer, request)
        except asyncio.CancelledError:
            end = "cancelled"
            raise
        except (ConnectionError, OSError) as exc:
            # The client hung up mid-answer (an interrupted turn): worth seeing in the log.
            end = f"client gone ({type(exc).__name__})"
            raise
        finally:
            record["served"] = {"entry": entry, "status": status, "end": end}
