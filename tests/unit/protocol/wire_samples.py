"""Representative instances of the wire models (threads, turns, items, notifications, requests).

`NOTIFICATION_SAMPLES` / `SERVER_REQUEST_SAMPLES` give one params instance per table entry;
`reference_samples` pairs these and more with their reference definitions.
"""

from __future__ import annotations

from tether_protocol.common import WireModel
from tether_protocol.v2 import config as cfg
from tether_protocol.v2 import inputs as inp
from tether_protocol.v2 import item_parts as ip
from tether_protocol.v2 import items as it
from tether_protocol.v2 import model as mdl
from tether_protocol.v2 import notifications as n
from tether_protocol.v2 import sandbox as sb
from tether_protocol.v2 import thread as th
from tether_protocol.v2 import thread_history as hi
from tether_protocol.v2 import turn as tu

TS = 1796001491410
THREAD_ID = "01a22a07-e3bc-7622-8b07-aea9ca14e0eb"
TURN_ID = "01a22a07-e3bc-7622-8b07-aea9ca14e0ec"
CWD = "/work/project"

TEXT = inp.TextInput(
    text="hello @a.py",
    text_elements=[inp.TextElement(byte_range=inp.ByteRange(start=6, end=11), placeholder="@a.py")],
)
INPUTS: list[WireModel] = [
    TEXT,
    inp.TextInput(text="bare"),
    inp.ImageInput(url="data:image/png;base64,AAAA", detail="high"),
    inp.ImageInput(file_id="file_1"),
    inp.LocalImageInput(path="/tmp/a.png", detail="auto"),
    inp.AudioInput(url="data:audio/wav;base64,AAAA"),
    inp.LocalAudioInput(path="/tmp/a.wav"),
    inp.SkillInput(name="deploy", path="/skills/deploy/SKILL.md"),
    inp.MentionInput(name="a.py", path="/work/project/a.py"),
]

COMMAND_ACTIONS: list[WireModel] = [
    ip.ReadCommandAction(command="cat a.py", name="a.py", path="/work/project/a.py"),
    ip.ListFilesCommandAction(command="ls src", path="src"),
    ip.SearchCommandAction(command="rg foo", query="foo", path="."),
    ip.UnknownCommandAction(command="touch x"),
]
CHANGE_KINDS: list[WireModel] = [ip.AddChange(), ip.DeleteChange(), ip.UpdateChange(move_path="/work/b.py")]
WEB_ACTIONS: list[WireModel] = [
    ip.SearchWebAction(query="q", queries=["q", "r"]),
    ip.OpenPageWebAction(url="https://example.com"),
    ip.FindInPageWebAction(url="https://example.com", pattern="x"),
    ip.OtherWebAction(),
]
CONTENT_ITEMS: list[WireModel] = [
    ip.InputTextContentItem(text="ok"),
    ip.InputImageContentItem(image_url="data:image/png;base64,AAAA"),
    ip.InputAudioContentItem(audio_url="data:audio/wav;base64,AAAA"),
]

USER_MESSAGE = it.UserMessageItem(id="item_1", client_id="c1", content=[TEXT], started_at_ms=TS)
AGENT_MESSAGE = it.AgentMessageItem(id="msg_1", text="Hello there", started_at_ms=TS, completed_at_ms=TS + 5)
COMMAND = it.CommandExecutionItem(
    id="call_1",
    command="/bin/bash -lc 'echo hi'",
    cwd=CWD,
    process_id="123",
    source="unifiedExecStartup",
    status="completed",
    command_actions=[ip.UnknownCommandAction(command="echo hi")],
    aggregated_output="hi\n",
    exit_code=0,
    duration_ms=12,
)
FILE_CHANGE = it.FileChangeItem(
    id="call_patch_1",
    status="inProgress",
    changes=[
        ip.FileUpdateChange(
            path="/work/project/README.md", kind=ip.UpdateChange(), diff="@@ -1 +1 @@\n-a\n+b\n"
        ),
        ip.FileUpdateChange(path="/work/project/new.txt", kind=ip.AddChange(), diff="first line\n"),
    ],
)
ITEMS: list[WireModel] = [
    USER_MESSAGE,
    AGENT_MESSAGE,
    it.AgentMessageItem(
        id="msg_2",
        text="done",
        phase="final_answer",
        moderation=ip.AgentMessageModeration(moderated=False),
        memory_citation=ip.MemoryCitation(
            entries=[ip.MemoryCitationEntry(path="m.md", line_start=1, line_end=2, note="n")],
            thread_ids=[THREAD_ID],
        ),
        delivery="async",
        questions=[ip.AsyncUserInputQuestion(title="Continue?", options=["yes", "no"])],
    ),
    it.ReasoningItem(id="rs_1", summary=["thinking"], content=["raw"]),
    it.PlanItem(id="plan_1", text="1. do it"),
    COMMAND,
    it.CommandExecutionItem(
        id="call_2", command="ls", cwd=CWD, status="inProgress", command_actions=COMMAND_ACTIONS
    ),
    FILE_CHANGE,
    it.McpToolCallItem(
        id="mcp_1",
        server="docs",
        tool="search",
        status="completed",
        arguments={"q": "x"},
        result=ip.McpToolCallResult(
            content=[{"type": "text", "text": "r"}], structured_content={"a": 1}, meta={}
        ),
        error=None,
        duration_ms=3,
        app_context=ip.McpToolCallAppContext(connector_id="c", app_name="Docs"),
        mcp_app_ui=ip.McpAppUi(resource_uri="ui://x", preferred_model_display_mode="inline"),
        plugin_id="p",
        read_only_hint=True,
        mcp_app_resource_uri="ui://x",
    ),
    it.McpToolCallItem(
        id="mcp_2", server="docs", tool="t", status="failed", error=ip.McpToolCallError(message="boom")
    ),
    it.DynamicToolCallItem(
        id="dyn_1",
        namespace="ns",
        tool="lookup",
        arguments={"k": 1},
        status="completed",
        content_items=CONTENT_ITEMS,
        success=True,
        duration_ms=4,
    ),
    it.WebSearchItem(id="ws_1", query="q", action=WEB_ACTIONS[0], results=[{"url": "https://example.com"}]),
    *[it.WebSearchItem(id=f"ws_{i}", query="q", action=a) for i, a in enumerate(WEB_ACTIONS[1:], 2)],
    it.ContextCompactionItem(id="cc_1"),
    it.ImageViewItem(id="iv_1", path="/tmp/a.png"),
    it.CollabAgentToolCallItem(
        id="call_spawn",
        tool="wait",
        status="completed",
        sender_thread_id="thr_1",
        receiver_thread_ids=["thr_2"],
        agents_states={"thr_2": it.CollabAgentState(status="completed", message="done")},
    ),
    it.EnteredReviewModeItem(id="rv_1", review="current changes"),
    it.ExitedReviewModeItem(id="rv_2", review="looks good"),
]

ERROR_INFOS: list[tu.CodexErrorInfo] = [
    "contextWindowExceeded",
    "other",
    tu.HttpConnectionFailedInfo(http_connection_failed=tu.HttpStatusDetail(http_status_code=502)),
    tu.ResponseStreamConnectionFailedInfo(response_stream_connection_failed=tu.HttpStatusDetail()),
    tu.ResponseStreamDisconnectedInfo(
        response_stream_disconnected=tu.HttpStatusDetail(http_status_code=None)
    ),
    tu.ResponseTooManyFailedAttemptsInfo(
        response_too_many_failed_attempts=tu.HttpStatusDetail(http_status_code=429)
    ),
    tu.ActiveTurnNotSteerableInfo(active_turn_not_steerable=tu.NonSteerableTurn(turn_kind="compact")),
]
TURN_ERROR = tu.TurnError(message="context window exceeded", codex_error_info="contextWindowExceeded")
TURN = tu.Turn(id=TURN_ID, root_turn_id=TURN_ID, items=[], items_view="notLoaded", status="inProgress")
TURN_DONE = tu.Turn(
    id=TURN_ID,
    root_turn_id=TURN_ID,
    items=[AGENT_MESSAGE],
    items_view="summary",
    status="completed",
    started_at=1796001518,
    completed_at=1796001520,
    duration_ms=2000,
)
TURN_FAILED = tu.Turn(id=TURN_ID, status="failed", error=TURN_ERROR, items=[])

STATUSES: list[WireModel] = [
    th.ThreadStatusNotLoaded(),
    th.ThreadStatusIdle(),
    th.ThreadStatusSystemError(),
    th.ThreadStatusActive(active_flags=["waitingOnApproval"]),
]
THREAD = th.Thread(
    id=THREAD_ID,
    session_id=THREAD_ID,
    preview="hello world",
    model_provider="openai",
    model="gpt-5.5",
    created_at=1796001489,
    updated_at=1796001509,
    recency_at=1796001509,
    status=th.ThreadStatusIdle(),
    path=f"/home/u/.codex/sessions/2026/11/30/rollout-2026-11-30T01-18-09-{THREAD_ID}.jsonl",
    cwd=CWD,
    cli_version="0.169.0",
    originator="codex_vscode",
    environments=[th.ThreadEnvironment(environment_id="local", cwd=CWD, runtime_workspace_roots=[CWD])],
    can_accept_direct_input=True,
)
THREAD_FULL = THREAD.model_copy(
    update={
        "forked_from_id": "f",
        "parent_thread_id": "p",
        "section": th.ThreadSection(id="s1", name="Work"),
        "section_entered_at": 1796001489,
        "project_id": "proj",
        "reasoning_effort": "high",
        "source": th.CustomSessionSource(custom="atlas"),
        "thread_source": "user",
        "agent_nickname": "nick",
        "agent_role": "role",
        "git_info": th.GitInfo(sha="abc", branch="main", origin_url="git@x:y.git"),
        "name": "My thread",
        "turns": [TURN_DONE, TURN_FAILED],
        "extra": {"k": 1},
        "attached_to_thread_id": "a",
        "daybreak_enabled": False,
    }
)

POLICIES: list[WireModel] = [
    sb.DangerFullAccessPolicy(),
    sb.ReadOnlyPolicy(),
    sb.WorkspaceWritePolicy(writable_roots=["/work/extra"], network_access=True),
    sb.ExternalSandboxPolicy(network_access="enabled"),
]
GRANULAR = sb.GranularApproval(
    granular=sb.GranularApprovalSettings(
        sandbox_approval=True,
        rules=False,
        mcp_elicitations=True,
        skill_approval=True,
        request_permissions=False,
    )
)

SESSION_RESULT = {
    "thread": THREAD,
    "model": "gpt-5.5",
    "model_provider": "openai",
    "cwd": CWD,
    "approval_policy": "on-request",
    "sandbox": sb.ReadOnlyPolicy(),
    "runtime_workspace_roots": [CWD],
    "active_permission_profile": th.ActivePermissionProfile(id=":read-only"),
    "multi_agent_mode": "explicitRequestOnly",
}
READ_STATE = hi.ThreadReadState(first_unread=hi.ThreadUnreadTurn(turn_id=TURN_ID), revision="3")
MODEL = mdl.Model(
    id="gpt-5.5",
    model="gpt-5.5",
    display_name="GPT-5.5",
    description="Frontier model",
    is_default=True,
    supported_reasoning_efforts=[mdl.ReasoningEffortOption(reasoning_effort="low", description="fast")],
    default_reasoning_effort="medium",
    supports_personality=True,
    service_tiers=[mdl.ModelServiceTier(id="flex", name="Flex", description="cheaper")],
    upgrade="gpt-6",
    upgrade_info=mdl.ModelUpgradeInfo(model="gpt-6", upgrade_copy="Try it"),
    availability_nux=mdl.ModelAvailabilityNux(message="New!"),
    multi_agent_version="v2",
)
LAYER_SOURCES: list[WireModel] = [
    cfg.UserLayerSource(file="/home/u/.codex/config.toml", profile="work"),
    cfg.ProjectLayerSource(dot_codex_folder="/work/project/.codex"),
    cfg.SystemLayerSource(file="/etc/codex/config.toml"),
    cfg.PackagedDefaultsLayerSource(file="/opt/codex/defaults.toml"),
    cfg.SessionFlagsLayerSource(),
]
USAGE = n.TokenUsageBreakdown(total_tokens=172, input_tokens=100, output_tokens=72)
