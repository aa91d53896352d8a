"""Reference samples of the experimental desktop methods: client-driven processes, background
terminals, stored-history reads (`thread/items/read`, `thread/searchOccurrences`,
`thread/timeline/list`) and `turn/settings/update`."""

from __future__ import annotations

from typing import Any

from tests.unit.protocol import wire_samples as s

from tether_protocol.common import WireModel
from tether_protocol.v2 import process as pr
from tether_protocol.v2 import thread_history as hi
from tether_protocol.v2 import thread_timeline as tt

HANDLE = "proc-1"

NOTIFICATIONS: dict[str, WireModel] = {
    "process/outputDelta": pr.ProcessOutputDeltaNotification(
        process_handle=HANDLE, stream="stdout", delta_base64="aGkK", cap_reached=False
    ),
    "process/exited": pr.ProcessExitedNotification(
        process_handle=HANDLE,
        exit_code=0,
        stdout="hi\n",
        stdout_cap_reached=False,
        stderr="",
        stderr_cap_reached=False,
        output_drain_timed_out=False,
    ),
}
"""Params of the `process/*` notifications, keyed by method."""


def _timeline() -> list[dict[str, Any]]:
    # The shapes `thread/timeline/list` answers: Codex's own spellings next to its schema's.
    t = s.TURN_ID
    return [
        {"type": "turnStarted", "turnId": t, "turn_id": t, "startedAt": 1, "started_at": 1, "position": 0},
        {"type": "item", "turnId": t, "item": s.USER_MESSAGE.wire(), "position": 1},
        {
            "type": "turnCompleted",
            "turnId": t,
            "turn_id": t,
            "startedAt": 1,
            "started_at": 1,
            "status": "completed",
            "error": None,
            "completedAt": 2,
            "completed_at": 2,
            "durationMs": 1000,
            "duration_ms": 1000,
            "position": 2,
        },
    ]


def process_samples() -> list[tuple[str, WireModel]]:
    """(reference definition name, instance) for each model of `process` and `thread_timeline`."""
    t = s.THREAD_ID
    size = pr.ProcessTerminalSize(rows=24, cols=80)
    occurrence = tt.ThreadSearchOccurrence(
        turn_id=s.TURN_ID,
        item_id="item_1",
        snippet="hello world",
        snippet_match_range=tt.ThreadSearchTextRange(start=6, end=11),
        turn_cursor="c",
    )
    return [
        (
            "ThreadBackgroundTerminalsTerminateParams",
            pr.ThreadBackgroundTerminalsTerminateParams(thread_id=t, process_id="1000"),
        ),
        (
            "ThreadBackgroundTerminalsTerminateResponse",
            pr.ThreadBackgroundTerminalsTerminateResponse(terminated=False),
        ),
        ("ThreadBackgroundTerminalsCleanParams", pr.ThreadBackgroundTerminalsCleanParams(thread_id=t)),
        ("ThreadBackgroundTerminalsCleanResponse", pr.ThreadBackgroundTerminalsCleanResponse()),
        ("ProcessTerminalSize", size),
        (
            "ProcessSpawnParams",
            pr.ProcessSpawnParams(
                command=["bash", "-i"],
                cwd=s.CWD,
                process_handle=HANDLE,
                env={"A": "1", "B": None},
                output_bytes_cap=1024,
                size=size,
                timeout_ms=1000,
                tty=True,
            ),
        ),
        ("ProcessSpawnParams", pr.ProcessSpawnParams(command=["true"], cwd=s.CWD, process_handle=HANDLE)),
        ("ProcessSpawnResponse", pr.ProcessSpawnResponse()),
        (
            "ProcessWriteStdinParams",
            pr.ProcessWriteStdinParams(process_handle=HANDLE, delta_base64="aGkK", close_stdin=True),
        ),
        ("ProcessWriteStdinResponse", pr.ProcessWriteStdinResponse()),
        ("ProcessKillParams", pr.ProcessKillParams(process_handle=HANDLE)),
        ("ProcessKillResponse", pr.ProcessKillResponse()),
        ("ProcessResizePtyParams", pr.ProcessResizePtyParams(process_handle=HANDLE, size=size)),
        ("ProcessResizePtyResponse", pr.ProcessResizePtyResponse()),
        (
            "ThreadItemsReadParams",
            tt.ThreadItemsReadParams(thread_id=t, turn_id=s.TURN_ID, item_ids=["item_1"]),
        ),
        (
            "ThreadItemsReadResponse",
            tt.ThreadItemsReadResponse(data=[hi.ThreadItemEntry(turn_id=s.TURN_ID, item=s.USER_MESSAGE)]),
        ),
        (
            "ThreadSearchOccurrencesParams",
            tt.ThreadSearchOccurrencesParams(thread_id=t, search_term="world", cursor="1", limit=5),
        ),
        ("ThreadSearchTextRange", occurrence.snippet_match_range),
        ("ThreadSearchOccurrence", occurrence),
        (
            "ThreadSearchOccurrencesResponse",
            tt.ThreadSearchOccurrencesResponse(data=[occurrence], next_cursor="2"),
        ),
        ("ThreadTimelineListParams", tt.ThreadTimelineListParams(thread_id=t, cursor="0", limit=10)),
        ("ThreadTimelineListResponse", tt.ThreadTimelineListResponse(data=_timeline(), next_cursor="3")),
        (
            "TurnSettingsUpdateParams",
            tt.TurnSettingsUpdateParams(
                thread_id=t,
                turn_id=s.TURN_ID,
                approvals_reviewer="user",
                environments=[{"environmentId": "local", "cwd": s.CWD}],
                model="gpt-5.5",
                effort="high",
                summary="concise",
                service_tier="flex",
            ),
        ),
        ("TurnSettingsUpdateParams", tt.TurnSettingsUpdateParams(thread_id=t, turn_id=s.TURN_ID)),
        ("TurnSettingsUpdateResponse", tt.TurnSettingsUpdateResponse(status="targetUnavailable")),
    ]
