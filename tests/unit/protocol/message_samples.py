"""Sample params of every server notification and server request, keyed by method."""

from __future__ import annotations

from tests.unit.protocol import account_extras_samples, process_samples
from tests.unit.protocol import wire_samples as s
from tests.unit.protocol.hook_samples import HOOK_NOTIFICATIONS

from tether_protocol.common import WireModel
from tether_protocol.v2 import account as acct
from tether_protocol.v2 import approvals as ap
from tether_protocol.v2 import command as cmd
from tether_protocol.v2 import fs, mcp
from tether_protocol.v2 import fuzzy as fz
from tether_protocol.v2 import item_parts as ip
from tether_protocol.v2 import notifications as n
from tether_protocol.v2 import project as pj
from tether_protocol.v2 import review as rv
from tether_protocol.v2 import thread as th
from tether_protocol.v2 import thread_desktop as td
from tether_protocol.v2 import thread_extras as tx
from tether_protocol.v2 import thread_goal as tg
from tether_protocol.v2 import thread_history as hi
from tether_protocol.v2 import thread_section as ts
from tether_protocol.v2.skills import SkillsChangedNotification

THREAD_SETTINGS = tx.ThreadSettings.model_validate(
    {
        "cwd": s.CWD,
        "environments": [{"environmentId": "local", "cwd": s.CWD, "runtimeWorkspaceRoots": [s.CWD]}],
        "approvalPolicy": "on-request",
        "approvalsReviewer": "user",
        "sandboxPolicy": {"type": "readOnly", "networkAccess": False},
        "activePermissionProfile": {"id": ":read-only", "extends": None},
        "model": "gpt-5.5",
        "modelProvider": "mock",
        "effort": "high",
        "collaborationMode": {
            "mode": "plan",
            "settings": {"model": "gpt-5.5", "reasoning_effort": "high", "developer_instructions": "plan"},
        },
        "multiAgentMode": "explicitRequestOnly",
    }
)

NOTIFICATION_SAMPLES: dict[str, WireModel] = {
    "thread/started": n.ThreadStartedNotification(thread=s.THREAD),
    "thread/status/changed": n.ThreadStatusChangedNotification(
        thread_id=s.THREAD_ID, status=th.ThreadStatusActive(active_flags=[])
    ),
    "thread/closed": n.ThreadClosedNotification(thread_id=s.THREAD_ID),
    "thread/archived": n.ThreadArchivedNotification(thread_id=s.THREAD_ID),
    "thread/unarchived": n.ThreadUnarchivedNotification(thread_id=s.THREAD_ID),
    "thread/deleted": n.ThreadDeletedNotification(thread_id=s.THREAD_ID),
    "thread/name/updated": n.ThreadNameUpdatedNotification(thread_id=s.THREAD_ID, thread_name="Renamed"),
    "thread/reverted": n.ThreadRevertedNotification(thread_id=s.THREAD_ID),
    "thread/readState/changed": tx.ThreadReadStateChangedNotification(
        thread_id=s.THREAD_ID,
        read_state=hi.ThreadReadState(first_unread=hi.ThreadUnreadStart(), revision="r-2"),
    ),
    "thread/tokenUsage/updated": n.ThreadTokenUsageUpdatedNotification(
        thread_id=s.THREAD_ID,
        turn_id=s.TURN_ID,
        token_usage=n.ThreadTokenUsage(total=s.USAGE, last=s.USAGE, model_context_window=258400),
    ),
    "thread/settings/updated": tx.ThreadSettingsUpdatedNotification(
        thread_id=s.THREAD_ID,
        thread_settings=THREAD_SETTINGS,
    ),
    "thread/compacted": n.ContextCompactedNotification(thread_id=s.THREAD_ID, turn_id=s.TURN_ID),
    "thread/goal/updated": tg.ThreadGoalUpdatedNotification(
        thread_id=s.THREAD_ID,
        turn_id=None,
        goal=tg.ThreadGoal(
            thread_id=s.THREAD_ID,
            objective="ship",
            status="active",
            tokens_used=0,
            time_used_seconds=0,
            created_at=1,
            updated_at=1,
        ),
    ),
    "thread/goal/cleared": n.ThreadGoalClearedNotification(thread_id=s.THREAD_ID),
    "thread/section/changed": ts.ThreadSectionChangedNotification(thread_id=s.THREAD_ID, section_id=None),
    "thread/attachment/updated": td.ThreadAttachmentUpdatedNotification(
        thread_id=s.THREAD_ID, attachment_type="pr", identity_key="k", attachment_id="a", operation="created"
    ),
    "thread/queue/changed": td.ThreadQueueChangedNotification(thread_id=s.THREAD_ID),
    "project/changed": pj.ProjectChangedNotification(project_id="p", change_type="deleted"),
    "thread/project/updated": pj.ThreadProjectUpdatedNotification(thread_id=s.THREAD_ID, project_id="p"),
    "turn/started": n.TurnStartedNotification(thread_id=s.THREAD_ID, turn=s.TURN),
    "turn/completed": n.TurnCompletedNotification(thread_id=s.THREAD_ID, turn=s.TURN_DONE),
    "turn/diff/updated": n.TurnDiffUpdatedNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, diff="diff --git"
    ),
    "turn/plan/updated": n.TurnPlanUpdatedNotification(
        thread_id=s.THREAD_ID,
        turn_id=s.TURN_ID,
        explanation="why",
        plan=[
            n.TurnPlanStep(step="read", status="completed"),
            n.TurnPlanStep(step="edit", status="inProgress"),
        ],
    ),
    "item/started": n.ItemStartedNotification(
        item=s.COMMAND, thread_id=s.THREAD_ID, turn_id=s.TURN_ID, started_at_ms=s.TS
    ),
    "item/completed": n.ItemCompletedNotification(
        item=s.AGENT_MESSAGE,
        thread_id=s.THREAD_ID,
        turn_id=s.TURN_ID,
        completed_at_ms=s.TS,
        content_token_count=7,
    ),
    "item/agentMessage/delta": n.AgentMessageDeltaNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="msg_1", delta="Hel"
    ),
    "item/plan/delta": n.PlanDeltaNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="p", delta="1."
    ),
    "item/reasoning/summaryTextDelta": n.ReasoningSummaryTextDeltaNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="rs_1", delta="**x**", summary_index=0
    ),
    "item/reasoning/summaryPartAdded": n.ReasoningSummaryPartAddedNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="rs_1", summary_index=1
    ),
    "item/reasoning/textDelta": n.ReasoningTextDeltaNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="rs_1", delta="raw", content_index=0
    ),
    "item/mcpToolCall/progress": mcp.McpToolCallProgressNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="call_m", message="half way"
    ),
    "mcpServer/startupStatus/updated": mcp.McpServerStatusUpdatedNotification(
        name="docs", status="failed", error="MCP server exited"
    ),
    "item/commandExecution/outputDelta": n.CommandExecutionOutputDeltaNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="call_1", delta="hi\n"
    ),
    "item/commandExecution/terminalInteraction": n.TerminalInteractionNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="call_1", process_id="123", stdin="y\n"
    ),
    "item/fileChange/outputDelta": n.FileChangeOutputDeltaNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="call_patch_1", delta="ok"
    ),
    "item/fileChange/patchUpdated": n.FileChangePatchUpdatedNotification(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="call_patch_1", changes=s.FILE_CHANGE.changes
    ),
    "item/autoApprovalReview/started": rv.ItemGuardianApprovalReviewStartedNotification(
        thread_id=s.THREAD_ID,
        turn_id=s.TURN_ID,
        review_id="review_1",
        target_item_id="call_1",
        started_at_ms=1_700_000_000_000,
        action=rv.CommandGuardianApprovalReviewAction(command="ls", cwd="/w", source="unifiedExec"),
        review=rv.GuardianApprovalReview(status="inProgress"),
    ),
    "item/autoApprovalReview/completed": rv.ItemGuardianApprovalReviewCompletedNotification(
        thread_id=s.THREAD_ID,
        turn_id=s.TURN_ID,
        review_id="review_1",
        target_item_id=None,
        started_at_ms=1_700_000_000_000,
        completed_at_ms=1_700_000_000_500,
        action=rv.ApplyPatchGuardianApprovalReviewAction(cwd="/w", files=["/w/a.txt"]),
        review=rv.GuardianApprovalReview(status="denied", risk_level="high", rationale="deletes files"),
        decision_source="agent",
    ),
    "serverRequest/resolved": n.ServerRequestResolvedNotification(thread_id=s.THREAD_ID, request_id=0),
    "error": n.ErrorNotification(
        error=s.TURN_ERROR, will_retry=False, thread_id=s.THREAD_ID, turn_id=s.TURN_ID
    ),
    "warning": n.WarningNotification(thread_id=s.THREAD_ID, message="Model metadata for `x` not found."),
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
    "account/updated": acct.AccountUpdatedNotification(auth_mode="apikey"),
    "account/login/completed": acct.AccountLoginCompletedNotification(success=True),
    "account/rateLimits/updated": n.AccountRateLimitsUpdatedNotification(
        rate_limits=n.RateLimitSnapshot(
            limit_id="codex",
            primary=n.RateLimitWindow(used_percent=12, window_duration_mins=300, resets_at=s.TS),
        )
    ),
    "remoteControl/status/changed": n.RemoteControlStatusChangedNotification(
        status="disabled", server_name="host", installation_id="3f1c"
    ),
    "fs/changed": fs.FsChangedNotification(watch_id="w", changed_paths=["/tmp/a"]),
    "fuzzyFileSearch/sessionUpdated": fz.FuzzyFileSearchSessionUpdatedNotification(
        session_id="s",
        query="rea",
        files=[
            fz.FuzzyFileSearchResult(
                root="/r",
                path="README.md",
                match_type="file",
                file_name="README.md",
                score=80,
                indices=[0, 1, 2],
            )
        ],
    ),
    "fuzzyFileSearch/sessionCompleted": fz.FuzzyFileSearchSessionCompletedNotification(session_id="s"),
}

EXEC_APPROVAL = ap.CommandExecutionRequestApprovalParams(
    thread_id=s.THREAD_ID,
    turn_id=s.TURN_ID,
    item_id="call_1",
    started_at_ms=s.TS,
    environment_id="local",
    command="/bin/bash -lc 'touch approved1.txt'",
    cwd=s.CWD,
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
    thread_id=s.THREAD_ID,
    turn_id=s.TURN_ID,
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
NOTIFICATION_SAMPLES.update(HOOK_NOTIFICATIONS)
NOTIFICATION_SAMPLES["skills/changed"] = SkillsChangedNotification()
NOTIFICATION_SAMPLES.update(account_extras_samples.NOTIFICATIONS)
NOTIFICATION_SAMPLES.update(process_samples.NOTIFICATIONS)
SERVER_REQUEST_SAMPLES: dict[str, WireModel] = {
    "item/commandExecution/requestApproval": EXEC_APPROVAL,
    "item/fileChange/requestApproval": ap.FileChangeRequestApprovalParams(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, item_id="call_patch_1", started_at_ms=s.TS
    ),
    "item/tool/requestUserInput": USER_INPUT_REQUEST,
    "mcpServer/elicitation/request": mcp.McpServerElicitationRequestParams(
        thread_id=s.THREAD_ID,
        turn_id=s.TURN_ID,
        server_name="docs",
        mode="form",
        message="Which color?",
        requested_schema={"type": "object", "properties": {"color": {"type": "string"}}},
    ),
    "item/tool/call": mcp.DynamicToolCallParams(
        thread_id=s.THREAD_ID, turn_id=s.TURN_ID, call_id="call_d", tool="lookup", arguments={"id": 1}
    ),
    "account/chatgptAuthTokens/refresh": acct.ChatgptAuthTokensRefreshParams(previous_account_id="acc-1"),
}
