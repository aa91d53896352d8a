"""Representative instances of every wire model, paired with their reference-schema definition.

`REFERENCE_SAMPLES` lists (reference definition name, instance); variants of a union appear once
each. `NOTIFICATION_SAMPLES` / `SERVER_REQUEST_SAMPLES` give one params instance per table entry.
"""

from __future__ import annotations

from tether_protocol.common import WireModel
from tether_protocol.v2 import approvals as ap
from tether_protocol.v2 import command as cmd
from tether_protocol.v2 import config as cfg
from tether_protocol.v2 import fs
from tether_protocol.v2 import initialize as ini
from tether_protocol.v2 import inputs as inp
from tether_protocol.v2 import item_parts as ip
from tether_protocol.v2 import items as it
from tether_protocol.v2 import model as mdl
from tether_protocol.v2 import notifications as n
from tether_protocol.v2 import sandbox as sb
from tether_protocol.v2 import thread as th
from tether_protocol.v2 import thread_admin as ta
from tether_protocol.v2 import thread_history as hi
from tether_protocol.v2 import thread_lifecycle as tl
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

NOTIFICATION_SAMPLES: dict[str, WireModel] = {
    "thread/started": n.ThreadStartedNotification(thread=THREAD),
    "thread/status/changed": n.ThreadStatusChangedNotification(
        thread_id=THREAD_ID, status=th.ThreadStatusActive(active_flags=[])
    ),
    "thread/closed": n.ThreadClosedNotification(thread_id=THREAD_ID),
    "thread/archived": n.ThreadArchivedNotification(thread_id=THREAD_ID),
    "thread/unarchived": n.ThreadUnarchivedNotification(thread_id=THREAD_ID),
    "thread/deleted": n.ThreadDeletedNotification(thread_id=THREAD_ID),
    "thread/name/updated": n.ThreadNameUpdatedNotification(thread_id=THREAD_ID, thread_name="Renamed"),
    "thread/reverted": n.ThreadRevertedNotification(thread_id=THREAD_ID),
    "thread/tokenUsage/updated": n.ThreadTokenUsageUpdatedNotification(
        thread_id=THREAD_ID,
        turn_id=TURN_ID,
        token_usage=n.ThreadTokenUsage(total=USAGE, last=USAGE, model_context_window=258400),
    ),
    "thread/compacted": n.ContextCompactedNotification(thread_id=THREAD_ID, turn_id=TURN_ID),
    "thread/goal/cleared": n.ThreadGoalClearedNotification(thread_id=THREAD_ID),
    "turn/started": n.TurnStartedNotification(thread_id=THREAD_ID, turn=TURN),
    "turn/completed": n.TurnCompletedNotification(thread_id=THREAD_ID, turn=TURN_DONE),
    "turn/diff/updated": n.TurnDiffUpdatedNotification(
        thread_id=THREAD_ID, turn_id=TURN_ID, diff="diff --git"
    ),
    "turn/plan/updated": n.TurnPlanUpdatedNotification(
        thread_id=THREAD_ID,
        turn_id=TURN_ID,
        explanation="why",
        plan=[
            n.TurnPlanStep(step="read", status="completed"),
            n.TurnPlanStep(step="edit", status="inProgress"),
        ],
    ),
    "item/started": n.ItemStartedNotification(
        item=COMMAND, thread_id=THREAD_ID, turn_id=TURN_ID, started_at_ms=TS
    ),
    "item/completed": n.ItemCompletedNotification(
        item=AGENT_MESSAGE, thread_id=THREAD_ID, turn_id=TURN_ID, completed_at_ms=TS, content_token_count=7
    ),
    "item/agentMessage/delta": n.AgentMessageDeltaNotification(
        thread_id=THREAD_ID, turn_id=TURN_ID, item_id="msg_1", delta="Hel"
    ),
    "item/plan/delta": n.PlanDeltaNotification(thread_id=THREAD_ID, turn_id=TURN_ID, item_id="p", delta="1."),
    "item/reasoning/summaryTextDelta": n.ReasoningSummaryTextDeltaNotification(
        thread_id=THREAD_ID, turn_id=TURN_ID, item_id="rs_1", delta="**x**", summary_index=0
    ),
    "item/reasoning/summaryPartAdded": n.ReasoningSummaryPartAddedNotification(
        thread_id=THREAD_ID, turn_id=TURN_ID, item_id="rs_1", summary_index=1
    ),
    "item/reasoning/textDelta": n.ReasoningTextDeltaNotification(
        thread_id=THREAD_ID, turn_id=TURN_ID, item_id="rs_1", delta="raw", content_index=0
    ),
    "item/commandExecution/outputDelta": n.CommandExecutionOutputDeltaNotification(
        thread_id=THREAD_ID, turn_id=TURN_ID, item_id="call_1", delta="hi\n"
    ),
    "item/commandExecution/terminalInteraction": n.TerminalInteractionNotification(
        thread_id=THREAD_ID, turn_id=TURN_ID, item_id="call_1", process_id="123", stdin="y\n"
    ),
    "item/fileChange/outputDelta": n.FileChangeOutputDeltaNotification(
        thread_id=THREAD_ID, turn_id=TURN_ID, item_id="call_patch_1", delta="ok"
    ),
    "item/fileChange/patchUpdated": n.FileChangePatchUpdatedNotification(
        thread_id=THREAD_ID, turn_id=TURN_ID, item_id="call_patch_1", changes=FILE_CHANGE.changes
    ),
    "serverRequest/resolved": n.ServerRequestResolvedNotification(thread_id=THREAD_ID, request_id=0),
    "error": n.ErrorNotification(error=TURN_ERROR, will_retry=False, thread_id=THREAD_ID, turn_id=TURN_ID),
    "warning": n.WarningNotification(thread_id=THREAD_ID, message="Model metadata for `x` not found."),
    "deprecationNotice": n.DeprecationNoticeNotification(summary="Full-history hydration is deprecated"),
    "configWarning": n.ConfigWarningNotification(
        summary="bad key",
        details="unknown field",
        path="/home/u/.codex/config.toml",
        range=n.TextRange(start=n.TextPosition(line=1, column=1), end=n.TextPosition(line=1, column=9)),
    ),
    "command/exec/outputDelta": cmd.CommandExecOutputDeltaNotification(
        process_id="p1", stream="stdout", delta_base64="aGkK", cap_reached=False
    ),
    "account/rateLimits/updated": n.AccountRateLimitsUpdatedNotification(
        rate_limits=n.RateLimitSnapshot(
            limit_id="codex",
            primary=n.RateLimitWindow(used_percent=12, window_duration_mins=300, resets_at=TS),
        )
    ),
    "remoteControl/status/changed": n.RemoteControlStatusChangedNotification(
        status="disabled", server_name="host", installation_id="3f1c"
    ),
}

EXEC_APPROVAL = ap.CommandExecutionRequestApprovalParams(
    thread_id=THREAD_ID,
    turn_id=TURN_ID,
    item_id="call_1",
    started_at_ms=TS,
    environment_id="local",
    command="/bin/bash -lc 'touch approved1.txt'",
    cwd=CWD,
    command_actions=[ip.UnknownCommandAction(command="touch approved1.txt")],
    reason="Allow writing?",
    network_approval_context=ap.NetworkApprovalContext(host="example.com", protocol="https"),
    proposed_execpolicy_amendment=["touch", "approved1.txt"],
    proposed_network_policy_amendments=[ap.NetworkPolicyAmendment(host="example.com", action="allow")],
    available_decisions=[
        "accept",
        ap.AcceptWithExecpolicyAmendment(
            accept_with_execpolicy_amendment=ap.ExecPolicyAmendmentBody(execpolicy_amendment=["touch"])
        ),
        "cancel",
    ],
)
USER_INPUT_REQUEST = ap.ToolRequestUserInputParams(
    thread_id=THREAD_ID,
    turn_id=TURN_ID,
    item_id="call_q",
    questions=[
        ap.ToolRequestUserInputQuestion(
            id="color",
            header="Color",
            question="Pick a color",
            is_other=True,
            options=[ap.ToolRequestUserInputOption(label="Red (Recommended)", description="warm")],
        )
    ],
    is_blocking=True,
)
SERVER_REQUEST_SAMPLES: dict[str, WireModel] = {
    "item/commandExecution/requestApproval": EXEC_APPROVAL,
    "item/fileChange/requestApproval": ap.FileChangeRequestApprovalParams(
        thread_id=THREAD_ID, turn_id=TURN_ID, item_id="call_patch_1", started_at_ms=TS
    ),
    "item/tool/requestUserInput": USER_INPUT_REQUEST,
}

_union_samples: list[tuple[str, WireModel]] = [
    *[("UserInput", x) for x in INPUTS],
    *[("CommandAction", x) for x in COMMAND_ACTIONS],
    *[("PatchChangeKind", x) for x in CHANGE_KINDS],
    *[("WebSearchAction", x) for x in WEB_ACTIONS],
    *[("DynamicToolCallOutputContentItem", x) for x in CONTENT_ITEMS],
    *[("ThreadItem", x) for x in ITEMS],
    *[("ThreadStatus", x) for x in STATUSES],
    *[("SandboxPolicy", x) for x in POLICIES],
    *[("ConfigLayerSource", x) for x in LAYER_SOURCES],
    *[("CodexErrorInfo", x) for x in ERROR_INFOS if isinstance(x, WireModel)],
    ("AskForApproval", GRANULAR),
    ("SessionSource", th.CustomSessionSource(custom="atlas")),
    ("SessionSource", th.SubAgentSessionSource(sub_agent="review")),
    ("ThreadUnreadPosition", hi.ThreadUnreadStart()),
    ("ThreadUnreadPosition", hi.ThreadUnreadTurn(turn_id=TURN_ID)),
    ("ThreadItemsListAnchor", hi.ThreadItemsListAnchor(item_id="item_1")),
    (
        "CommandExecutionApprovalDecision",
        ap.AcceptWithExecpolicyAmendment(
            accept_with_execpolicy_amendment=ap.ExecPolicyAmendmentBody(execpolicy_amendment=["ls"])
        ),
    ),
    (
        "CommandExecutionApprovalDecision",
        ap.ApplyNetworkPolicyAmendment(
            apply_network_policy_amendment=ap.NetworkPolicyAmendmentBody(
                network_policy_amendment=ap.NetworkPolicyAmendment(host="h", action="deny")
            )
        ),
    ),
]

_object_samples: list[tuple[str, WireModel]] = [
    ("ClientInfo", ini.ClientInfo(name="codex_vscode", title="Codex VS Code Extension", version="0.1.0")),
    (
        "InitializeParams",
        ini.InitializeParams(
            client_info=ini.ClientInfo(name="c", version="1"),
            capabilities=ini.InitializeCapabilities(
                experimental_api=True, opt_out_notification_methods=["x"]
            ),
        ),
    ),
    ("InitializeCapabilities", ini.InitializeCapabilities(experimental_api=True)),
    ("ByteRange", inp.ByteRange(start=0, end=1)),
    ("TextElement", inp.TextElement(byte_range=inp.ByteRange(start=0, end=1))),
    ("FileUpdateChange", FILE_CHANGE.changes[0]),
    ("McpToolCallResult", ip.McpToolCallResult(content=[])),
    ("McpToolCallError", ip.McpToolCallError(message="x")),
    ("McpToolCallAppContext", ip.McpToolCallAppContext(connector_id="c")),
    ("McpAppUi", ip.McpAppUi(resource_uri="ui://x", preferred_model_display_mode="inline")),
    ("AgentMessageModeration", ip.AgentMessageModeration(moderated=True)),
    ("MemoryCitation", ip.MemoryCitation()),
    ("MemoryCitationEntry", ip.MemoryCitationEntry(path="m", line_start=1, line_end=1, note="n")),
    ("AsyncUserInputQuestion", ip.AsyncUserInputQuestion(title="t")),
    ("TurnError", TURN_ERROR),
    ("TurnError", tu.TurnError(message="m", codex_error_info=ERROR_INFOS[2], additional_details="d")),
    ("Turn", TURN),
    ("Turn", TURN_DONE),
    ("Turn", TURN_FAILED),
    (
        "CollaborationMode",
        tu.CollaborationMode(mode="plan", settings=tu.CollaborationSettings(model="gpt-5.5")),
    ),
    ("Settings", tu.CollaborationSettings(model="m", reasoning_effort="low", developer_instructions="d")),
    ("TurnToolOutput", tu.TurnToolOutput(name="t", namespace="ns", output="done", retain=True)),
    (
        "TurnStartParams",
        tu.TurnStartParams(
            thread_id=THREAD_ID,
            input=INPUTS,
            client_user_message_id="c1",
            cwd=CWD,
            approval_policy=GRANULAR,
            approvals_reviewer="auto_review",
            sandbox_policy=sb.WorkspaceWritePolicy(),
            model="gpt-5.5",
            service_tier="flex",
            service_tier_for_turn="flex",
            effort="high",
            summary="concise",
            personality="pragmatic",
            output_schema={"type": "object"},
            disabled_plugin_ids=["p"],
            turn_trigger="user",
            parent_turn_id="pt",
            root_turn_id="rt",
            tool_output=tu.TurnToolOutput(name="t", output=[{"type": "input_text", "text": "x"}]),
        ),
    ),
    ("TurnStartParams", tu.TurnStartParams(thread_id=THREAD_ID, input=[TEXT])),
    ("TurnStartResponse", tu.TurnStartResponse(turn=TURN)),
    ("TurnSteerParams", tu.TurnSteerParams(thread_id=THREAD_ID, input=[TEXT], expected_turn_id=TURN_ID)),
    ("TurnSteerResponse", tu.TurnSteerResponse(turn_id=TURN_ID)),
    ("TurnInterruptParams", tu.TurnInterruptParams(thread_id=THREAD_ID, turn_id=TURN_ID)),
    ("TurnInterruptResponse", tu.TurnInterruptResponse()),
    ("GitInfo", th.GitInfo(sha="a")),
    ("ThreadSection", th.ThreadSection(id="s", name="n")),
    ("ThreadEnvironment", th.ThreadEnvironment(environment_id="local", cwd=CWD)),
    ("Thread", THREAD),
    ("Thread", THREAD_FULL),
    ("ActivePermissionProfile", th.ActivePermissionProfile(id=":read-only", extends=":base")),
    ("ThreadStartParams", tl.ThreadStartParams()),
    (
        "ThreadStartParams",
        tl.ThreadStartParams(
            model="gpt-5.5",
            model_provider="openai",
            service_tier="flex",
            cwd=CWD,
            approval_policy="never",
            approvals_reviewer="user",
            sandbox="workspace-write",
            config={"model_reasoning_effort": "high"},
            base_instructions="b",
            developer_instructions="d",
            service_name="svc",
            personality="friendly",
            ephemeral=True,
            session_start_source="clear",
            thread_source="user",
        ),
    ),
    ("ThreadResumeParams", tl.ThreadResumeParams(thread_id=THREAD_ID, exclude_turns=True, after_seq=42)),
    ("ThreadForkParams", tl.ThreadForkParams(thread_id=THREAD_ID, last_turn_id=TURN_ID, ephemeral=True)),
    ("ThreadStartResponse", tl.ThreadStartResponse(**SESSION_RESULT)),
    ("ThreadStartResponse", tl.ThreadSessionResponse(**SESSION_RESULT)),
    ("ThreadForkResponse", tl.ThreadForkResponse(**SESSION_RESULT)),
    (
        "ThreadResumeResponse",
        tl.ThreadResumeResponse(
            **SESSION_RESULT,
            collaboration_mode=tu.CollaborationMode(
                mode="default", settings=tu.CollaborationSettings(model="m")
            ),
            turns_backwards_cursor="t",
            items_backwards_cursor="i",
        ),
    ),
    (
        "ThreadListParams",
        hi.ThreadListParams(
            cursor="c",
            limit=10,
            sort_key="updated_at",
            sort_direction="asc",
            model_providers=["openai"],
            source_kinds=["vscode", "cli"],
            archived=False,
            cwd=[CWD],
            search_term="x",
            excluded_thread_ids=["t"],
            section_id="s",
            use_state_db_only=True,
            current_account_only=False,
            originators=[],
        ),
    ),
    ("ThreadListParams", hi.ThreadListParams(cwd=CWD)),
    (
        "ThreadListResponse",
        hi.ThreadListResponse(data=[THREAD], next_cursor="c", read_states={THREAD_ID: READ_STATE}),
    ),
    ("ThreadReadState", READ_STATE),
    ("ThreadReadParams", hi.ThreadReadParams(thread_id=THREAD_ID, include_turns=True)),
    ("ThreadReadResponse", hi.ThreadReadResponse(thread=THREAD, read_state=READ_STATE)),
    (
        "ThreadTurnsListParams",
        hi.ThreadTurnsListParams(
            thread_id=THREAD_ID, cursor="c", limit=5, sort_direction="desc", items_view="full"
        ),
    ),
    (
        "ThreadTurnsListResponse",
        hi.ThreadTurnsListResponse(data=[TURN_DONE], next_cursor="n", backwards_cursor="b"),
    ),
    (
        "ThreadItemsListParams",
        hi.ThreadItemsListParams(
            thread_id=THREAD_ID, turn_id=TURN_ID, cursor=hi.ThreadItemsListAnchor(item_id="i"), limit=3
        ),
    ),
    (
        "ThreadItemsListParams",
        hi.ThreadItemsListParams(thread_id=THREAD_ID, cursor="opaque", sort_direction="asc"),
    ),
    ("ThreadItemOutputDeferral", hi.ThreadItemOutputDeferral(command_execution=True)),
    (
        "ThreadItemEntry",
        hi.ThreadItemEntry(turn_id=TURN_ID, item=USER_MESSAGE, started_at_ms=TS, completed_at_ms=TS),
    ),
    (
        "ThreadItemsListResponse",
        hi.ThreadItemsListResponse(data=[hi.ThreadItemEntry(turn_id=TURN_ID, item=COMMAND)]),
    ),
    ("ThreadLoadedListParams", hi.ThreadLoadedListParams(cursor="c", limit=1)),
    ("ThreadLoadedListResponse", hi.ThreadLoadedListResponse(data=[THREAD_ID])),
    ("ThreadArchiveParams", ta.ThreadArchiveParams(thread_id=THREAD_ID)),
    ("ThreadArchiveParams", ta.ThreadIdParams(thread_id=THREAD_ID)),
    ("ThreadArchiveResponse", ta.ThreadArchiveResponse()),
    ("ThreadUnarchiveParams", ta.ThreadUnarchiveParams(thread_id=THREAD_ID)),
    ("ThreadUnarchiveResponse", ta.ThreadUnarchiveResponse(thread=THREAD)),
    ("ThreadDeleteParams", ta.ThreadDeleteParams(thread_id=THREAD_ID)),
    ("ThreadDeleteResponse", ta.ThreadDeleteResponse()),
    ("ThreadSetNameParams", ta.ThreadSetNameParams(thread_id=THREAD_ID, name="n")),
    ("ThreadSetNameResponse", ta.ThreadSetNameResponse()),
    ("ThreadCompactStartParams", ta.ThreadCompactStartParams(thread_id=THREAD_ID)),
    ("ThreadCompactStartResponse", ta.ThreadCompactStartResponse()),
    ("ThreadRevertParams", ta.ThreadRevertParams(thread_id=THREAD_ID, before_turn_id=TURN_ID)),
    ("ThreadRevertResponse", ta.ThreadRevertResponse(thread=THREAD, turns_backwards_cursor="t")),
    ("ThreadUnsubscribeParams", ta.ThreadUnsubscribeParams(thread_id=THREAD_ID)),
    ("ThreadUnsubscribeResponse", ta.ThreadUnsubscribeResponse(status="unsubscribed")),
    (
        "ThreadShellCommandParams",
        ta.ThreadShellCommandParams(thread_id=THREAD_ID, command="ls", timeout_ms=0),
    ),
    ("ThreadShellCommandResponse", ta.ThreadShellCommandResponse()),
    (
        "CommandExecParams",
        cmd.CommandExecParams(
            command=["ls", "-l"],
            process_id="p1",
            tty=True,
            stream_stdin=True,
            stream_stdout_stderr=True,
            output_bytes_cap=1024,
            timeout_ms=1000,
            cwd=CWD,
            env={"A": "1", "B": None},
            size=cmd.CommandExecTerminalSize(rows=24, cols=80),
            sandbox_policy=sb.ReadOnlyPolicy(network_access=False),
        ),
    ),
    (
        "CommandExecParams",
        cmd.CommandExecParams(command=["true"], disable_output_cap=True, disable_timeout=True),
    ),
    ("CommandExecResponse", cmd.CommandExecResponse(exit_code=7, stdout="out\n", stderr="err\n")),
    (
        "CommandExecWriteParams",
        cmd.CommandExecWriteParams(process_id="p1", delta_base64="aGkK", close_stdin=True),
    ),
    ("CommandExecWriteResponse", cmd.CommandExecWriteResponse()),
    (
        "CommandExecResizeParams",
        cmd.CommandExecResizeParams(process_id="p1", size=cmd.CommandExecTerminalSize(rows=1, cols=2)),
    ),
    ("CommandExecResizeResponse", cmd.CommandExecResizeResponse()),
    ("CommandExecTerminateParams", cmd.CommandExecTerminateParams(process_id="p1")),
    ("CommandExecTerminateResponse", cmd.CommandExecTerminateResponse()),
    ("CommandExecTerminalSize", cmd.CommandExecTerminalSize(rows=24, cols=80)),
    (
        "ModelListParams",
        mdl.ModelListParams(cursor="2", limit=5, include_hidden=True, model_provider="openai"),
    ),
    ("ModelListResponse", mdl.ModelListResponse(data=[MODEL], next_cursor="2")),
    ("Model", MODEL),
    ("ReasoningEffortOption", MODEL.supported_reasoning_efforts[0]),
    ("ModelServiceTier", MODEL.service_tiers[0]),
    ("ModelUpgradeInfo", mdl.ModelUpgradeInfo(model="m", retirement_at=TS)),
    ("ModelAvailabilityNux", mdl.ModelAvailabilityNux(message="m")),
    ("ConfigReadParams", cfg.ConfigReadParams(include_layers=True, cwd=CWD)),
    (
        "ConfigReadResponse",
        cfg.ConfigReadResponse(
            config={"model": "gpt-5.5", "approval_policy": "on-request", "sandbox_mode": "read-only"},
            origins={"model": cfg.ConfigLayerMetadata(name=cfg.SessionFlagsLayerSource(), version="1")},
            layers=[cfg.ConfigLayer(name=LAYER_SOURCES[0], version="v", config={"model": "x"})],
        ),
    ),
    (
        "ConfigLayer",
        cfg.ConfigLayer(name=LAYER_SOURCES[1], version="v", config={}, disabled_reason="untrusted"),
    ),
    ("ConfigLayerMetadata", cfg.ConfigLayerMetadata(name=LAYER_SOURCES[2], version="v")),
    ("FsReadFileParams", fs.FsReadFileParams(path="/etc/hostname")),
    ("FsReadFileResponse", fs.FsReadFileResponse(data_base64="aGVsbG8gZmlsZQo=")),
    ("TokenUsageBreakdown", USAGE),
    ("ThreadTokenUsage", n.ThreadTokenUsage(total=USAGE, last=USAGE)),
    ("TurnPlanStep", n.TurnPlanStep(step="s", status="pending")),
    ("TextPosition", n.TextPosition(line=1, column=2)),
    ("TextRange", n.TextRange(start=n.TextPosition(line=1, column=2), end=n.TextPosition(line=1, column=3))),
    ("RateLimitSnapshot", n.RateLimitSnapshot()),
    ("RateLimitWindow", n.RateLimitWindow(used_percent=1)),
    (
        "AgentMessageDeltaNotification",
        n.ItemDeltaNotification(thread_id="t", turn_id="u", item_id="i", delta="d"),
    ),
    ("ThreadClosedNotification", n.ThreadIdNotification(thread_id="t")),
    ("NetworkApprovalContext", ap.NetworkApprovalContext(host="h", protocol="socks5Tcp")),
    ("NetworkPolicyAmendment", ap.NetworkPolicyAmendment(host="h", action="allow")),
    ("CommandExecutionRequestApprovalParams", EXEC_APPROVAL),
    (
        "CommandExecutionRequestApprovalParams",
        ap.CommandExecutionRequestApprovalParams(thread_id="t", turn_id="u", item_id="i", started_at_ms=TS),
    ),
    (
        "FileChangeRequestApprovalParams",
        ap.FileChangeRequestApprovalParams(
            thread_id="t", turn_id="u", item_id="i", started_at_ms=TS, reason="r", grant_root="/work"
        ),
    ),
    ("ToolRequestUserInputParams", USER_INPUT_REQUEST),
    ("ToolRequestUserInputQuestion", USER_INPUT_REQUEST.questions[0]),
    ("ToolRequestUserInputOption", ap.ToolRequestUserInputOption(label="l", description="d")),
]

_notification_samples: list[tuple[str, WireModel]] = [
    (type(model).__name__, model) for model in NOTIFICATION_SAMPLES.values()
]

REFERENCE_SAMPLES: list[tuple[str, WireModel]] = _union_samples + _object_samples + _notification_samples
"""(reference definition name, instance) for every model that has a counterpart in the reference."""

SCHEMALESS_MODELS: dict[str, WireModel] = {
    # Helper layers inside reference definitions (validated through their parents above).
    "GranularApprovalSettings": GRANULAR.granular,
    "HttpStatusDetail": tu.HttpStatusDetail(),
    "NonSteerableTurn": tu.NonSteerableTurn(turn_kind="review"),
    "ExecPolicyAmendmentBody": ap.ExecPolicyAmendmentBody(execpolicy_amendment=[]),
    "NetworkPolicyAmendmentBody": ap.NetworkPolicyAmendmentBody(
        network_policy_amendment=ap.NetworkPolicyAmendment(host="h", action="allow")
    ),
    "SessionOverrides": tl.SessionOverrides(),
    # Client answers to server requests: the reference ships no schema for them.
    "CommandExecutionRequestApprovalResponse": ap.CommandExecutionRequestApprovalResponse(decision="accept"),
    "FileChangeRequestApprovalResponse": ap.FileChangeRequestApprovalResponse(decision="decline"),
    "ToolRequestUserInputResponse": ap.ToolRequestUserInputResponse(
        answers={"color": ap.ToolRequestUserInputAnswer(answers=["Red"])}
    ),
    "ToolRequestUserInputAnswer": ap.ToolRequestUserInputAnswer(answers=[]),
    "InitializeResponse": ini.InitializeResponse(
        user_agent="a/0.169.0", codex_home="/h", platform_family="unix", platform_os="linux"
    ),
}
"""Models without a same-shaped reference definition (InitializeResponse lives in the v1 folder)."""
