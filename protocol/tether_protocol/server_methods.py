"""The server's half of the method table: notifications it sends and requests it makes.

`methods` re-exports both tables; this module only keeps that file small.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import AnyNotificationSpec, NotificationSpec, ServerRequestSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import account as acct
    from tether_protocol.v2 import account_extras as ax
    from tether_protocol.v2 import approvals as ap
    from tether_protocol.v2 import command as cmd
    from tether_protocol.v2 import external_agent as xa
    from tether_protocol.v2 import fs, mcp
    from tether_protocol.v2 import fuzzy as fz
    from tether_protocol.v2 import hooks as hk
    from tether_protocol.v2 import notifications as n
    from tether_protocol.v2 import process as pr
    from tether_protocol.v2 import project as pj
    from tether_protocol.v2 import review as rv
    from tether_protocol.v2 import skills as sk
    from tether_protocol.v2 import thread_desktop as td
    from tether_protocol.v2 import thread_extras as tx
    from tether_protocol.v2 import thread_goal as tg
    from tether_protocol.v2 import thread_section as ts
else:
    acct = models("tether_protocol.v2.account")
    ax = models("tether_protocol.v2.account_extras")
    ap = models("tether_protocol.v2.approvals")
    cmd = models("tether_protocol.v2.command")
    xa = models("tether_protocol.v2.external_agent")
    fs = models("tether_protocol.v2.fs")
    mcp = models("tether_protocol.v2.mcp")
    fz = models("tether_protocol.v2.fuzzy")
    hk = models("tether_protocol.v2.hooks")
    n = models("tether_protocol.v2.notifications")
    pr = models("tether_protocol.v2.process")
    pj = models("tether_protocol.v2.project")
    rv = models("tether_protocol.v2.review")
    sk = models("tether_protocol.v2.skills")
    td = models("tether_protocol.v2.thread_desktop")
    tx = models("tether_protocol.v2.thread_extras")
    tg = models("tether_protocol.v2.thread_goal")
    ts = models("tether_protocol.v2.thread_section")

# One constant per notification: senders name the constant, and its params model types them.
THREAD_STARTED = NotificationSpec(
    "thread/started",
    n.ThreadStartedNotification,
    broadcast=True,
    doc="A thread was created or forked.",
)
THREAD_STATUS_CHANGED = NotificationSpec(
    "thread/status/changed",
    n.ThreadStatusChangedNotification,
    broadcast=True,
    doc="Thread status moved.",
)
THREAD_CLOSED = NotificationSpec(
    "thread/closed",
    n.ThreadClosedNotification,
    broadcast=True,
    doc="A thread was unloaded.",
)
THREAD_ARCHIVED = NotificationSpec(
    "thread/archived",
    n.ThreadArchivedNotification,
    broadcast=True,
    doc="A thread was archived.",
)
THREAD_UNARCHIVED = NotificationSpec(
    "thread/unarchived",
    n.ThreadUnarchivedNotification,
    broadcast=True,
    doc="A thread was unarchived.",
)
THREAD_DELETED = NotificationSpec(
    "thread/deleted",
    n.ThreadDeletedNotification,
    broadcast=True,
    doc="A thread was deleted.",
)
THREAD_NAME_UPDATED = NotificationSpec(
    "thread/name/updated",
    n.ThreadNameUpdatedNotification,
    broadcast=True,
    doc="A thread was renamed.",
)
THREAD_REVERTED = NotificationSpec(
    "thread/reverted",
    n.ThreadRevertedNotification,
    doc="A thread's history was cut.",
)
THREAD_TOKEN_USAGE_UPDATED = NotificationSpec(
    "thread/tokenUsage/updated",
    n.ThreadTokenUsageUpdatedNotification,
    doc="Token usage after a call.",
)
THREAD_SETTINGS_UPDATED = NotificationSpec(
    "thread/settings/updated",
    tx.ThreadSettingsUpdatedNotification,
    doc="The settings of the thread's next turns changed.",
)
THREAD_COMPACTED = NotificationSpec(
    "thread/compacted",
    n.ContextCompactedNotification,
    doc="Deprecated; never emitted.",
)
THREAD_READ_STATE_CHANGED = NotificationSpec(
    "thread/readState/changed",
    tx.ThreadReadStateChangedNotification,
    doc="A thread's read marker moved.",
)
THREAD_GOAL_UPDATED = NotificationSpec(
    "thread/goal/updated",
    tg.ThreadGoalUpdatedNotification,
    doc="A thread's goal changed: set by a client, by the model's goal tools, or by a turn's usage.",
)
THREAD_GOAL_CLEARED = NotificationSpec(
    "thread/goal/cleared",
    n.ThreadGoalClearedNotification,
    broadcast=True,
    doc="A thread's goal was removed.",
)
THREAD_SECTION_CHANGED = NotificationSpec(
    "thread/section/changed",
    ts.ThreadSectionChangedNotification,
    broadcast=True,
    doc="A thread moved into, within or out of a section.",
)
THREAD_ATTACHMENT_UPDATED = NotificationSpec(
    "thread/attachment/updated",
    td.ThreadAttachmentUpdatedNotification,
    broadcast=True,
    doc="An attachment of a thread was created or deleted.",
)
THREAD_QUEUE_CHANGED = NotificationSpec(
    "thread/queue/changed",
    td.ThreadQueueChangedNotification,
    doc="A thread's queued messages changed (added, updated, deleted, reordered or started).",
)
PROJECT_CHANGED = NotificationSpec(
    "project/changed",
    pj.ProjectChangedNotification,
    broadcast=True,
    doc="A project was created, updated or deleted.",
)
THREAD_PROJECT_UPDATED = NotificationSpec(
    "thread/project/updated",
    pj.ThreadProjectUpdatedNotification,
    broadcast=True,
    doc="A thread joined a project or left it.",
)
TURN_STARTED = NotificationSpec("turn/started", n.TurnStartedNotification, doc="A turn began.")
TURN_COMPLETED = NotificationSpec(
    "turn/completed",
    n.TurnCompletedNotification,
    doc="A turn ended (any status).",
)
TURN_DIFF_UPDATED = NotificationSpec(
    "turn/diff/updated",
    n.TurnDiffUpdatedNotification,
    doc="Cumulative diff of the turn.",
)
TURN_PLAN_UPDATED = NotificationSpec(
    "turn/plan/updated",
    n.TurnPlanUpdatedNotification,
    doc="The agent's plan changed.",
)
ITEM_STARTED = NotificationSpec("item/started", n.ItemStartedNotification, doc="An item began.")
ITEM_COMPLETED = NotificationSpec(
    "item/completed",
    n.ItemCompletedNotification,
    doc="An item reached its final state.",
)
ITEM_AGENT_MESSAGE_DELTA = NotificationSpec(
    "item/agentMessage/delta",
    n.AgentMessageDeltaNotification,
    doc="Streamed message text.",
)
ITEM_PLAN_DELTA = NotificationSpec("item/plan/delta", n.PlanDeltaNotification, doc="Streamed plan text.")
ITEM_REASONING_SUMMARY_TEXT_DELTA = NotificationSpec(
    "item/reasoning/summaryTextDelta",
    n.ReasoningSummaryTextDeltaNotification,
    doc="Streamed reasoning summary text.",
)
ITEM_REASONING_SUMMARY_PART_ADDED = NotificationSpec(
    "item/reasoning/summaryPartAdded",
    n.ReasoningSummaryPartAddedNotification,
    doc="A new reasoning summary part began.",
)
ITEM_REASONING_TEXT_DELTA = NotificationSpec(
    "item/reasoning/textDelta",
    n.ReasoningTextDeltaNotification,
    doc="Streamed raw reasoning text.",
)
ITEM_COMMAND_EXECUTION_OUTPUT_DELTA = NotificationSpec(
    "item/commandExecution/outputDelta",
    n.CommandExecutionOutputDeltaNotification,
    doc="Streamed command output.",
)
ITEM_COMMAND_EXECUTION_TERMINAL_INTERACTION = NotificationSpec(
    "item/commandExecution/terminalInteraction",
    n.TerminalInteractionNotification,
    doc="Stdin written to a running command.",
)
ITEM_FILE_CHANGE_OUTPUT_DELTA = NotificationSpec(
    "item/fileChange/outputDelta",
    n.FileChangeOutputDeltaNotification,
    doc="Streamed patch output.",
)
ITEM_AUTO_APPROVAL_REVIEW_STARTED = NotificationSpec(
    "item/autoApprovalReview/started",
    rv.ItemGuardianApprovalReviewStartedNotification,
    doc="An approval went to the auto-reviewer (unstable shape).",
)
ITEM_AUTO_APPROVAL_REVIEW_COMPLETED = NotificationSpec(
    "item/autoApprovalReview/completed",
    rv.ItemGuardianApprovalReviewCompletedNotification,
    doc="The auto-reviewer decided (unstable shape).",
)
ITEM_FILE_CHANGE_PATCH_UPDATED = NotificationSpec(
    "item/fileChange/patchUpdated",
    n.FileChangePatchUpdatedNotification,
    doc="The proposed patch changed.",
)
SERVER_REQUEST_RESOLVED = NotificationSpec(
    "serverRequest/resolved",
    n.ServerRequestResolvedNotification,
    doc="A pending server request was answered or cleared.",
)
ERROR = NotificationSpec("error", n.ErrorNotification, doc="A turn error (maybe retried).")
WARNING = NotificationSpec("warning", n.WarningNotification, doc="A non-fatal problem.")
DEPRECATION_NOTICE = NotificationSpec(
    "deprecationNotice",
    n.DeprecationNoticeNotification,
    doc="A deprecated feature was used.",
)
CONFIG_WARNING = NotificationSpec(
    "configWarning",
    n.ConfigWarningNotification,
    doc="A configuration problem.",
)
COMMAND_EXEC_OUTPUT_DELTA = NotificationSpec(
    "command/exec/outputDelta",
    cmd.CommandExecOutputDeltaNotification,
    doc="Streamed process output.",
)
PROCESS_OUTPUT_DELTA = NotificationSpec(
    "process/outputDelta",
    pr.ProcessOutputDeltaNotification,
    doc="Streamed output of a `process/spawn` process (experimental).",
)
PROCESS_EXITED = NotificationSpec(
    "process/exited",
    pr.ProcessExitedNotification,
    doc="A `process/spawn` process ended (experimental).",
)
ACCOUNT_UPDATED = NotificationSpec(
    "account/updated",
    acct.AccountUpdatedNotification,
    doc="The account changed.",
)
ACCOUNT_LOGIN_COMPLETED = NotificationSpec(
    "account/login/completed",
    acct.AccountLoginCompletedNotification,
    doc="A sign-in finished.",
)
EXTERNAL_AGENT_IMPORT_PROGRESS = NotificationSpec(
    "externalAgentConfig/import/progress",
    xa.ExternalAgentConfigImportProgressNotification,
    doc="One item of an import done.",
)
EXTERNAL_AGENT_IMPORT_COMPLETED = NotificationSpec(
    "externalAgentConfig/import/completed",
    xa.ExternalAgentConfigImportCompletedNotification,
    doc="An import finished: its results by item type.",
)
WINDOWS_SANDBOX_SETUP_COMPLETED = NotificationSpec(
    "windowsSandbox/setupCompleted",
    ax.WindowsSandboxSetupCompletedNotification,
    doc="A Windows sandbox setup ended (on Linux: always failed).",
)
MCP_SERVER_OAUTH_LOGIN_COMPLETED = NotificationSpec(
    "mcpServer/oauthLogin/completed",
    ax.McpServerOauthLoginCompletedNotification,
    doc="An MCP server OAuth sign-in ended: success, or why not.",
)
ACCOUNT_RATE_LIMITS_UPDATED = NotificationSpec(
    "account/rateLimits/updated",
    n.AccountRateLimitsUpdatedNotification,
    broadcast=True,
    doc="Rate limits changed.",
)
REMOTE_CONTROL_STATUS_CHANGED = NotificationSpec(
    "remoteControl/status/changed",
    n.RemoteControlStatusChangedNotification,
    doc="Remote-control status (sent after initialize).",
)
SKILLS_CHANGED = NotificationSpec(
    "skills/changed",
    sk.SkillsChangedNotification,
    broadcast=True,
    doc="Skill files under a watched skills folder changed (an invalidation signal).",
)
FS_CHANGED = NotificationSpec(
    "fs/changed",
    fs.FsChangedNotification,
    doc="Paths under an `fs/watch` changed.",
)
FUZZY_FILE_SEARCH_SESSION_UPDATED = NotificationSpec(
    "fuzzyFileSearch/sessionUpdated",
    fz.FuzzyFileSearchSessionUpdatedNotification,
    doc="Matches for a session's query.",
)
FUZZY_FILE_SEARCH_SESSION_COMPLETED = NotificationSpec(
    "fuzzyFileSearch/sessionCompleted",
    fz.FuzzyFileSearchSessionCompletedNotification,
    doc="A session's search finished.",
)
MCP_SERVER_STARTUP_STATUS_UPDATED = NotificationSpec(
    "mcpServer/startupStatus/updated",
    mcp.McpServerStatusUpdatedNotification,
    doc="An MCP server is starting, ready or failed.",
)
ITEM_MCP_TOOL_CALL_PROGRESS = NotificationSpec(
    "item/mcpToolCall/progress",
    mcp.McpToolCallProgressNotification,
    doc="Progress message of a running MCP tool call.",
)
HOOK_STARTED = NotificationSpec("hook/started", hk.HookStartedNotification, doc="A hook handler began.")
HOOK_COMPLETED = NotificationSpec("hook/completed", hk.HookCompletedNotification, doc="A hook handler ended.")

_server_requests: list[ServerRequestSpec] = [
    ServerRequestSpec(
        "item/commandExecution/requestApproval",
        ap.CommandExecutionRequestApprovalParams,
        ap.CommandExecutionRequestApprovalResponse,
        doc="Ask to run a command.",
    ),
    ServerRequestSpec(
        "item/fileChange/requestApproval",
        ap.FileChangeRequestApprovalParams,
        ap.FileChangeRequestApprovalResponse,
        doc="Ask to apply a patch.",
    ),
    ServerRequestSpec(
        "item/tool/requestUserInput",
        ap.ToolRequestUserInputParams,
        ap.ToolRequestUserInputResponse,
        doc="Ask the user questions (plan mode).",
    ),
    ServerRequestSpec(
        "mcpServer/elicitation/request",
        mcp.McpServerElicitationRequestParams,
        mcp.McpServerElicitationRequestResponse,
        doc="An MCP server asks the user for input, or to approve a tool call.",
    ),
    ServerRequestSpec(
        "item/tool/call",
        mcp.DynamicToolCallParams,
        mcp.DynamicToolCallResponse,
        doc="Run a dynamic tool the client declared on thread/start.",
    ),
    ServerRequestSpec(
        "account/chatgptAuthTokens/refresh",
        acct.ChatgptAuthTokensRefreshParams,
        acct.ChatgptAuthTokensRefreshResponse,
        doc="The ChatGPT backend refused the app's tokens: ask that app for fresh ones.",
    ),
]

# Every notification above, in the order defined: a new notification is one constant, nothing more.
SERVER_NOTIFICATIONS: dict[str, AnyNotificationSpec] = {
    spec.name: spec for spec in list(globals().values()) if isinstance(spec, NotificationSpec)
}
SERVER_REQUESTS: dict[str, ServerRequestSpec] = {spec.name: spec for spec in _server_requests}
