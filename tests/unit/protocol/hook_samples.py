"""Sample params of `hook/started` and `hook/completed`, as Codex 0.169.0 sent them."""

from __future__ import annotations

from tests.unit.protocol import wire_samples as s

from tether_protocol.common import WireModel
from tether_protocol.v2 import hooks as hk
from tether_protocol.v2 import items as it

_RUN = {
    "id": "pre-tool-use:0:/home/u/.codex/config.toml:call_1",
    "eventName": "preToolUse",
    "handlerType": "command",
    "executionMode": "sync",
    "scope": "turn",
    "sourcePath": "/home/u/.codex/config.toml",
    "source": "user",
    "displayOrder": 0,
    "status": "running",
    "statusMessage": "checking",
    "startedAt": 1796156143,
    "completedAt": None,
    "durationMs": None,
    "entries": [],
}
_DONE = {
    **_RUN,
    "status": "blocked",
    "completedAt": 1796156143,
    "durationMs": 8,
    "entries": [{"kind": "feedback", "text": "no touching"}],
}

HOOK_NOTIFICATIONS: dict[str, WireModel] = {
    "hook/started": hk.HookStartedNotification.model_validate(
        {"threadId": s.THREAD_ID, "turnId": s.TURN_ID, "run": _RUN}
    ),
    "hook/completed": hk.HookCompletedNotification.model_validate(
        {"threadId": s.THREAD_ID, "turnId": s.TURN_ID, "run": _DONE}
    ),
}

_COMPLETED = HOOK_NOTIFICATIONS["hook/completed"]
assert isinstance(_COMPLETED, hk.HookCompletedNotification)
# As Codex 0.169.0 sent it when a Stop hook exited 2 with "keep going please".
HOOK_PROMPT = it.HookPromptItem.model_validate(
    {
        "type": "hookPrompt",
        "id": "msg_01a23358-5189-71e3-8f2b-e21e352288b5",
        "fragments": [{"text": "keep going please", "hookRunId": "stop:7:/home/u/.codex/config.toml"}],
        "startedAtMs": 1796157755787,
        "completedAtMs": 1796157755787,
    }
)
HOOK_OBJECTS: list[tuple[str, WireModel]] = [
    ("HookRunSummary", _COMPLETED.run),
    ("HookOutputEntry", _COMPLETED.run.entries[0]),
    ("ThreadItem", HOOK_PROMPT),
    ("HookPromptFragment", HOOK_PROMPT.fragments[0]),
]
