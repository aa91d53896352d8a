"""The recorded scenarios: what the scripted client does and what the fake model answers.

A string parameter value `$thread` / `$turn` stands for the id the last `thread/start` / `turn/start`
returned, `$workdir` for the project folder, `$bogus` for a well-formed id no thread has.
The model's item ids (`msg_resp_mock_1_0`: response 1, output 0) and token counts are fixed, so that
the transcripts only change where Codex does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tether_testing.script import (
    OutputItem,
    ScriptedResponse,
    custom_tool_call,
    function_call,
    message,
    reasoning,
    reply,
    usage,
)

CLIENT_INFO = {"name": "oracle_driver", "title": "Oracle Driver", "version": "0.1.0"}
MODEL = "gpt-5.5"


@dataclass(frozen=True)
class Step:
    """One thing the client does; `op` is one of the `Runner` operations."""

    op: str
    method: str | None = None
    note: str | None = None
    params: Any = None
    request_id: Any = None
    text: str = ""
    seconds: float = 0.0
    result: dict[str, Any] = field(default_factory=dict)
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """One transcript: its steps, the model's script, and whether its model requests are kept."""

    name: str
    description: str
    steps: list[Step]
    script: Callable[[], list[ScriptedResponse]] = list
    keep_requests: bool = False


def request(method: str, params: Any = None, note: str | None = None, request_id: Any = None) -> Step:
    return Step("request", method, note, params=params, request_id=request_id)


def notify(method: str, params: Any = None, note: str | None = None) -> Step:
    return Step("notify", method, note, params=params)


def wait(method: str) -> Step:
    return Step("wait", method)


def raw(text: str, note: str | None = None) -> Step:
    return Step("raw", note=note, text=text)


def sleep(seconds: float = 0.3) -> Step:
    return Step("sleep", seconds=seconds)


HANDSHAKE = Step("handshake")
QUIESCE = Step("quiesce")


def _steer(text: str, expected_turn: str, note: str | None = None) -> Step:
    params = {
        "expectedTurnId": expected_turn,
        "input": [{"text": text, "type": "text"}],
        "threadId": "$thread",
    }
    return request("turn/steer", params, note)


def snapshot(*paths: str) -> Step:
    return Step("snapshot", paths=paths)


def turn(text: str) -> Step:
    return request("turn/start", {"input": [{"text": text, "type": "text"}], "threadId": "$thread"})


# ---- the model's answers -----------------------------------------------------------------------


def _answer(n: int, *items: OutputItem, output_tokens: int) -> ScriptedResponse:
    return reply(*items, usage=usage(100, output_tokens), response_id=f"resp_mock_{n}", model=MODEL)


def _text(n: int, text: str, deltas: int, output_tokens: int) -> ScriptedResponse:
    return _answer(
        n, message(text, deltas=deltas, msg_id=f"msg_resp_mock_{n}_0"), output_tokens=output_tokens
    )


def _paced(response: ScriptedResponse, delay_ms: float) -> ScriptedResponse:
    """`response` with a pause before each text delta: a model that streams slowly."""
    steps: list[dict[str, Any]] = []
    for step in response["steps"]:
        if step.get("event", {}).get("type") == "response.output_text.delta":
            steps.append({"delay_ms": delay_ms})
        steps.append(step)
    return {**response, "steps": steps}


SHELL_ARGUMENTS = (
    '{"cmd": "echo hi > out.txt && cat out.txt", "login": false, "sandbox_permissions": '
    '"require_escalated", "justification": "Allow writing out.txt in the workspace?"}'
)
SHELL_REASONING = (
    "**Writing the file**\n\nI need to write out.txt, which the read-only sandbox blocks, so I will ask for "
    "escalation."
)
PATCH = (
    "*** Begin Patch\n*** Add File: notes/new.txt\n+first line\n+second line\n*** Update File: README.md\n"
    "@@\n # demo\n-old text\n+new text\n*** End Patch"
)
LONG_STORY = (
    "This is a very long story about a scripted model that streams its answer slowly, one small piece at a "
    "time, giving a client plenty of time to interrupt the turn."
)
STEERED_WORK = (
    "Working on your summary of the repository: reading its layout, its modules and its tests, then "
    "writing it all up."
)


def _shell_script(final: str, output_tokens: int) -> Callable[[], list[ScriptedResponse]]:
    def script() -> list[ScriptedResponse]:
        thinking = reasoning([SHELL_REASONING], encrypted_content=None, item_id="rs_resp_mock_1_0", deltas=3)
        call = function_call("exec_command", SHELL_ARGUMENTS, "call_shell_1", item_id="fc_resp_mock_1_1")
        return [_answer(1, thinking, call, output_tokens=132), _text(2, final, 3, output_tokens)]

    return script


def _patch_script() -> list[ScriptedResponse]:
    patch = custom_tool_call("apply_patch", PATCH, "call_patch_1", item_id="ctc_resp_mock_1_0")
    return [
        _answer(1, patch, output_tokens=72),
        _text(2, "Added notes/new.txt and updated README.md.", 2, 50),
    ]


# ---- the scenarios -----------------------------------------------------------------------------

SHELL_STEPS = [
    HANDSHAKE,
    request("thread/start", {"approvalPolicy": "on-request", "cwd": "$workdir", "sandbox": "read-only"}),
    turn("write hi into out.txt"),
    wait("item/commandExecution/requestApproval"),
    sleep(),
]
_SHELL = (
    "approvalPolicy on-request, read-only sandbox. The model calls exec_command with "
    "sandbox_permissions=require_escalated (asking to leave the sandbox), so the server must ask the "
    "client: item/commandExecution/requestApproval. "
)

INITIALIZE = {"clientInfo": CLIENT_INFO}
HANDSHAKE_ERRORS = [
    request("thread/list", {}, "request before initialize"),
    notify("initialized", note="initialized notification before initialize"),
    sleep(),
    request("initialize", INITIALIZE),
    request("thread/list", {}, "request after initialize response but before the initialized notification"),
    notify("initialized"),
    request("initialize", INITIALIZE, "initialize twice"),
    request("no/such/method", {}, "unknown method"),
    request("thread/start", {"cwd": 12345}, "invalid params: wrong type"),
    request("turn/start", {"threadId": "$bogus"}, "invalid params: missing required input"),
    request(
        "turn/start",
        {"input": [{"text": "hi", "type": "text"}], "threadId": "$bogus"},
        "well-formed but unknown thread id",
    ),
    request("thread/read", {"threadId": "not-a-uuid"}, "malformed thread id"),
    request("thread/list", None, "request without a params member"),
    raw('{"id": 90, "method": "thread/list", "params": {', "malformed JSON line"),
    sleep(),
    raw("[1, 2, 3]"),
    sleep(),
    raw('{"id": 91}'),
    sleep(),
    request("thread/list", {}, "string request id", request_id="string-id-1"),
    raw('{"id": 777, "result": {"decision": "accept"}}', "response to a server request that was never sent"),
    sleep(),
    notify("no/such/notification", {}),
    sleep(),
    request("thread/list", {}, "connection still usable"),
    QUIESCE,
]

PLAN_TEXT = "I looked around.\n<proposed_plan>\n# Plan\n\n- step one\n- step two\n</proposed_plan>\n"
PLAN_QUESTIONS = (
    '{"questions": [{"id": "scope", "header": "Scope", "question": "Which module first?", "options": '
    '[{"label": "core (Recommended)", "description": "The core loop."}, {"label": "cli", "description": '
    '"The command line."}]}]}'
)
PLAN_MODE = {"mode": "plan", "settings": {"model": MODEL, "developer_instructions": None}}


def _plan_script() -> list[ScriptedResponse]:
    ask = function_call("request_user_input", PLAN_QUESTIONS, "call_rui_1", item_id="fc_resp_mock_1_0")
    return [_answer(1, ask, output_tokens=60), _text(2, PLAN_TEXT, 8, 40)]


SCENARIOS = [
    Scenario(
        "simple_turn",
        "thread/start, turn/start 'hello'; the model streams a 5-delta assistant message.",
        [
            HANDSHAKE,
            request("thread/start", {"cwd": "$workdir"}),
            wait("thread/started"),
            turn("hello"),
            wait("turn/completed"),
            QUIESCE,
        ],
        lambda: [_text(1, "Hello! I am a scripted mock model.", 5, 48)],
        keep_requests=True,
    ),
    Scenario(
        "apply_patch",
        "approvalPolicy on-request, workspace-write sandbox. The model emits the freeform apply_patch custom "
        "tool call adding notes/new.txt and updating README.md inside the workspace (no approval expected "
        "there), then a final message. Expect fileChange item + turn/diff/updated.",
        [
            HANDSHAKE,
            request(
                "thread/start",
                {"approvalPolicy": "on-request", "cwd": "$workdir", "sandbox": "workspace-write"},
            ),
            turn("add notes/new.txt and fix README"),
            Step("auto_respond", "item/fileChange/requestApproval", result={"decision": "accept"}),
            wait("turn/completed"),
            snapshot("README.md", "notes/new.txt"),
        ],
        _patch_script,
        keep_requests=True,
    ),
    Scenario(
        "shell_approved",
        _SHELL + "The client accepts, the command runs (unsandboxed) and writes out.txt, its output goes "
        "back to the model, which answers.",
        [
            *SHELL_STEPS,
            Step("respond", result={"decision": "accept"}),
            wait("turn/completed"),
            snapshot("out.txt"),
        ],
        _shell_script("I wrote out.txt; it contains: hi", 47),
        keep_requests=True,
    ),
    Scenario(
        "shell_declined",
        _SHELL + "The client DECLINES; the command must not run; the model gets the rejection as tool output "
        "and answers.",
        [
            *SHELL_STEPS,
            Step("respond", result={"decision": "decline"}),
            wait("turn/completed"),
            snapshot("out.txt"),
        ],
        _shell_script("OK, I did not write the file because you declined.", 52),
    ),
    Scenario(
        "handshake_errors",
        "JSON-RPC edge cases on one stdio connection: a request before initialize, initialized-notification "
        "before initialize, initialize, a request between initialize and initialized, initialize twice, "
        "unknown method, invalid params (wrong type, missing required field, unknown thread id), a malformed "
        "JSON line, non-object JSON, a request with a string id, a response to a server request that never "
        "existed, an unknown notification; finally a valid request to show the connection still works.",
        HANDSHAKE_ERRORS,
    ),
    Scenario(
        "interrupt",
        "The model streams a long message slowly (40 deltas, 250 ms apart). After the first deltas arrive "
        "the client sends turn/interrupt. Expect turn/completed with status interrupted. A second turn "
        "follows so the request log shows how the interrupted turn is represented in the history Codex "
        "sends upstream.",
        [
            HANDSHAKE,
            request("thread/start", {"cwd": "$workdir"}),
            turn("tell me a long story"),
            wait("item/agentMessage/delta"),
            wait("item/agentMessage/delta"),
            wait("item/agentMessage/delta"),
            request("turn/interrupt", {"threadId": "$thread", "turnId": "$turn"}),
            wait("turn/completed"),
            QUIESCE,
            request(
                "turn/interrupt",
                {"threadId": "$thread", "turnId": "$turn"},
                "interrupt again after the turn ended",
            ),
            turn("ok, short answer please"),
            wait("turn/completed"),
            request("thread/read", {"includeTurns": True, "threadId": "$thread"}),
        ],
        lambda: [_paced(_text(1, LONG_STORY, 40, 60), 250), _text(2, "Second turn answer.", 2, 44)],
    ),
    Scenario(
        "plan_mode",
        "experimentalApi on. turn/start with collaborationMode plan (built-in instructions). The model calls "
        "request_user_input with one question; the client answers it; the model then answers with a "
        "<proposed_plan> block (8 deltas). Expect item/tool/requestUserInput, the answer as the call's "
        "output, and the block as a plan item streamed with item/plan/delta.",
        [
            Step("handshake", params={"clientInfo": CLIENT_INFO, "capabilities": {"experimentalApi": True}}),
            request("thread/start", {"cwd": "$workdir"}),
            request(
                "turn/start",
                {
                    "collaborationMode": PLAN_MODE,
                    "input": [{"text": "plan the work", "type": "text"}],
                    "threadId": "$thread",
                },
            ),
            wait("item/tool/requestUserInput"),
            Step("respond", result={"answers": {"scope": {"answers": ["core (Recommended)"]}}}),
            wait("turn/completed"),
            QUIESCE,
            request("thread/read", {"includeTurns": True, "threadId": "$thread"}),
        ],
        _plan_script,
        keep_requests=True,
    ),
    Scenario(
        "steer",
        "turn/steer while a turn is streaming: the first model response streams slowly (20 deltas, 150 ms "
        "apart); after the first deltas the client steers with extra input. Records whether the steer is "
        "accepted, which turn id it returns, how/when the steered input reaches the model (request log) and "
        "what item notifications it produces. Then error cases: steer with a wrong expectedTurnId during a "
        "turn, and steer when no turn is active.",
        [
            HANDSHAKE,
            request("thread/start", {"cwd": "$workdir"}),
            turn("summarise the repo"),
            wait("item/agentMessage/delta"),
            wait("item/agentMessage/delta"),
            _steer("Actually, focus on the tests first.", "$turn"),
            _steer("wrong turn id", "$bogus", "steer with a wrong expectedTurnId"),
            wait("turn/completed"),
            QUIESCE,
            _steer("too late", "$turn", "steer after the turn completed"),
        ],
        lambda: [
            _paced(_text(1, STEERED_WORK, 20, 60), 150),
            _text(2, "Got your steer: focusing on tests now.", 3, 49),
            _text(3, "A spare answer the steered turn should not need.", 3, 50),
        ],
    ),
]
