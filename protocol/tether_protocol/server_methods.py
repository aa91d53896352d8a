"""The server's half of the method table: notifications it sends and requests it makes.

`methods` re-exports both tables; this module only keeps that file small.
"""

from __future__ import annotations

from tether_protocol.spec import NotificationSpec, ServerRequestSpec
from tether_protocol.v2 import account as acct
from tether_protocol.v2 import approvals as ap
from tether_protocol.v2 import command as cmd
from tether_protocol.v2 import fs, mcp
from tether_protocol.v2 import fuzzy as fz
from tether_protocol.v2 import notifications as n
from tether_protocol.v2 import review as rv
from tether_protocol.v2 import thread_extras as tx

_notifications: list[NotificationSpec] = [
    NotificationSpec("thread/started", n.ThreadStartedNotification, doc="A thread was created or forked."),
    NotificationSpec("thread/status/changed", n.ThreadStatusChangedNotification, doc="Thread status moved."),
    NotificationSpec("thread/closed", n.ThreadClosedNotification, doc="A thread was unloaded."),
    NotificationSpec("thread/archived", n.ThreadArchivedNotification, doc="A thread was archived."),
    NotificationSpec("thread/unarchived", n.ThreadUnarchivedNotification, doc="A thread was unarchived."),
    NotificationSpec("thread/deleted", n.ThreadDeletedNotification, doc="A thread was deleted."),
    NotificationSpec("thread/name/updated", n.ThreadNameUpdatedNotification, doc="A thread was renamed."),
    NotificationSpec("thread/reverted", n.ThreadRevertedNotification, doc="A thread's history was cut."),
    NotificationSpec(
        "thread/tokenUsage/updated", n.ThreadTokenUsageUpdatedNotification, doc="Token usage after a call."
    ),
    NotificationSpec("thread/compacted", n.ContextCompactedNotification, doc="Deprecated; never emitted."),
    NotificationSpec(
        "thread/readState/changed",
        tx.ThreadReadStateChangedNotification,
        doc="A thread's read marker moved.",
    ),
    NotificationSpec("thread/goal/cleared", n.ThreadGoalClearedNotification, doc="Goal cleared (on resume)."),
    NotificationSpec("turn/started", n.TurnStartedNotification, doc="A turn began."),
    NotificationSpec("turn/completed", n.TurnCompletedNotification, doc="A turn ended (any status)."),
    NotificationSpec("turn/diff/updated", n.TurnDiffUpdatedNotification, doc="Cumulative diff of the turn."),
    NotificationSpec("turn/plan/updated", n.TurnPlanUpdatedNotification, doc="The agent's plan changed."),
    NotificationSpec("item/started", n.ItemStartedNotification, doc="An item began."),
    NotificationSpec("item/completed", n.ItemCompletedNotification, doc="An item reached its final state."),
    NotificationSpec(
        "item/agentMessage/delta", n.AgentMessageDeltaNotification, doc="Streamed message text."
    ),
    NotificationSpec("item/plan/delta", n.PlanDeltaNotification, doc="Streamed plan text."),
    NotificationSpec(
        "item/reasoning/summaryTextDelta",
        n.ReasoningSummaryTextDeltaNotification,
        doc="Streamed reasoning summary text.",
    ),
    NotificationSpec(
        "item/reasoning/summaryPartAdded",
        n.ReasoningSummaryPartAddedNotification,
        doc="A new reasoning summary part began.",
    ),
    NotificationSpec(
        "item/reasoning/textDelta", n.ReasoningTextDeltaNotification, doc="Streamed raw reasoning text."
    ),
    NotificationSpec(
        "item/commandExecution/outputDelta",
        n.CommandExecutionOutputDeltaNotification,
        doc="Streamed command output.",
    ),
    NotificationSpec(
        "item/commandExecution/terminalInteraction",
        n.TerminalInteractionNotification,
        doc="Stdin written to a running command.",
    ),
    NotificationSpec(
        "item/fileChange/outputDelta", n.FileChangeOutputDeltaNotification, doc="Streamed patch output."
    ),
    NotificationSpec(
        "item/autoApprovalReview/started",
        rv.ItemGuardianApprovalReviewStartedNotification,
        doc="An approval went to the auto-reviewer (unstable shape).",
    ),
    NotificationSpec(
        "item/autoApprovalReview/completed",
        rv.ItemGuardianApprovalReviewCompletedNotification,
        doc="The auto-reviewer decided (unstable shape).",
    ),
    NotificationSpec(
        "item/fileChange/patchUpdated",
        n.FileChangePatchUpdatedNotification,
        doc="The proposed patch changed.",
    ),
    NotificationSpec(
        "serverRequest/resolved",
        n.ServerRequestResolvedNotification,
        doc="A pending server request was answered or cleared.",
    ),
    NotificationSpec("error", n.ErrorNotification, doc="A turn error (maybe retried)."),
    NotificationSpec("warning", n.WarningNotification, doc="A non-fatal problem."),
    NotificationSpec(
        "deprecationNotice", n.DeprecationNoticeNotification, doc="A deprecated feature was used."
    ),
    NotificationSpec("configWarning", n.ConfigWarningNotification, doc="A configuration problem."),
    NotificationSpec(
        "command/exec/outputDelta", cmd.CommandExecOutputDeltaNotification, doc="Streamed process output."
    ),
    NotificationSpec("account/updated", acct.AccountUpdatedNotification, doc="The account changed."),
    NotificationSpec(
        "account/login/completed", acct.AccountLoginCompletedNotification, doc="A sign-in finished."
    ),
    NotificationSpec(
        "account/rateLimits/updated", n.AccountRateLimitsUpdatedNotification, doc="Rate limits changed."
    ),
    NotificationSpec(
        "remoteControl/status/changed",
        n.RemoteControlStatusChangedNotification,
        doc="Remote-control status (sent after initialize).",
    ),
    NotificationSpec("fs/changed", fs.FsChangedNotification, doc="Paths under an `fs/watch` changed."),
    NotificationSpec(
        "fuzzyFileSearch/sessionUpdated",
        fz.FuzzyFileSearchSessionUpdatedNotification,
        doc="Matches for a session's query.",
    ),
    NotificationSpec(
        "fuzzyFileSearch/sessionCompleted",
        fz.FuzzyFileSearchSessionCompletedNotification,
        doc="A session's search finished.",
    ),
    NotificationSpec(
        "mcpServer/startupStatus/updated",
        mcp.McpServerStatusUpdatedNotification,
        doc="An MCP server is starting, ready or failed.",
    ),
    NotificationSpec(
        "item/mcpToolCall/progress",
        mcp.McpToolCallProgressNotification,
        doc="Progress message of a running MCP tool call.",
    ),
]

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
]

SERVER_NOTIFICATIONS: dict[str, NotificationSpec] = {spec.name: spec for spec in _notifications}
SERVER_REQUESTS: dict[str, ServerRequestSpec] = {spec.name: spec for spec in _server_requests}
