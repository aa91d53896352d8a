"""(reference definition name, instance) pairs covering every wire model, for the conformance test."""

from __future__ import annotations

from tests.unit.protocol import message_samples as msgs
from tests.unit.protocol import wire_samples as s
from tests.unit.protocol.account_extras_samples import account_extras_samples, account_extras_schemaless
from tests.unit.protocol.desktop_samples import desktop_samples
from tests.unit.protocol.files_samples import files_samples, files_schemaless
from tests.unit.protocol.hook_samples import HOOK_OBJECTS
from tests.unit.protocol.mcp_samples import mcp_samples, mcp_schemaless
from tests.unit.protocol.plugin_samples import plugin_samples, plugin_schemaless
from tests.unit.protocol.process_samples import process_samples
from tests.unit.protocol.section_samples import section_samples
from tests.unit.protocol.settings_samples import settings_samples
from tests.unit.protocol.skills_samples import skills_samples
from tests.unit.protocol.workspace_samples import workspace_samples

from tether_protocol.common import WireModel
from tether_protocol.v2 import account as acct
from tether_protocol.v2 import approvals as ap
from tether_protocol.v2 import collaboration as collab
from tether_protocol.v2 import command as cmd
from tether_protocol.v2 import config as cfg
from tether_protocol.v2 import fs
from tether_protocol.v2 import initialize as ini
from tether_protocol.v2 import inputs as inp
from tether_protocol.v2 import item_parts as ip
from tether_protocol.v2 import items as it
from tether_protocol.v2 import model as mdl
from tether_protocol.v2 import notifications as n
from tether_protocol.v2 import review as rv
from tether_protocol.v2 import sandbox as sb
from tether_protocol.v2 import thread as th
from tether_protocol.v2 import thread_admin as ta
from tether_protocol.v2 import thread_history as hi
from tether_protocol.v2 import thread_lifecycle as tl
from tether_protocol.v2 import turn as tu

_union_samples: list[tuple[str, WireModel]] = [
    *[("UserInput", x) for x in s.INPUTS],
    *[("CommandAction", x) for x in s.COMMAND_ACTIONS],
    *[("PatchChangeKind", x) for x in s.CHANGE_KINDS],
    *[("WebSearchAction", x) for x in s.WEB_ACTIONS],
    *[("DynamicToolCallOutputContentItem", x) for x in s.CONTENT_ITEMS],
    *[("ThreadItem", x) for x in s.ITEMS],
    *[("ThreadStatus", x) for x in s.STATUSES],
    *[("SandboxPolicy", x) for x in s.POLICIES],
    *[("ConfigLayerSource", x) for x in s.LAYER_SOURCES],
    *[("CodexErrorInfo", x) for x in s.ERROR_INFOS if isinstance(x, WireModel)],
    ("AskForApproval", s.GRANULAR),
    ("SessionSource", th.CustomSessionSource(custom="atlas")),
    ("SessionSource", th.SubAgentSessionSource(sub_agent="review")),
    (
        "GuardianApprovalReviewAction",
        rv.CommandGuardianApprovalReviewAction(command="ls", cwd="/w", source="shell"),
    ),
    ("GuardianApprovalReviewAction", rv.ApplyPatchGuardianApprovalReviewAction(cwd="/w", files=[])),
    ("GuardianApprovalReview", rv.GuardianApprovalReview(status="approved", risk_level="low")),
    ("ThreadUnreadPosition", hi.ThreadUnreadStart()),
    ("ThreadUnreadPosition", hi.ThreadUnreadTurn(turn_id=s.TURN_ID)),
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
    ("GetAccountParams", acct.GetAccountParams(refresh_token=True)),
    ("GetAccountResponse", acct.GetAccountResponse(account=acct.ApiKeyAccount())),
    ("GetAccountResponse", acct.GetAccountResponse()),
    ("Account", acct.ApiKeyAccount()),
    ("LoginAccountParams", acct.LoginAccountParams(type="apiKey", api_key="sk-test")),
    ("LoginAccountResponse", acct.LoginAccountResponse()),
    ("AccountLoginCompletedNotification", acct.AccountLoginCompletedNotification(success=True)),
    ("AccountUpdatedNotification", acct.AccountUpdatedNotification(auth_mode="apikey")),
    ("AccountUpdatedNotification", acct.AccountUpdatedNotification()),
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
    ("FileUpdateChange", s.FILE_CHANGE.changes[0]),
    ("McpToolCallResult", ip.McpToolCallResult(content=[])),
    ("McpToolCallError", ip.McpToolCallError(message="x")),
    ("McpToolCallAppContext", ip.McpToolCallAppContext(connector_id="c")),
    ("McpAppUi", ip.McpAppUi(resource_uri="ui://x", preferred_model_display_mode="inline")),
    ("AgentMessageModeration", ip.AgentMessageModeration(moderated=True)),
    ("MemoryCitation", ip.MemoryCitation()),
    ("MemoryCitationEntry", ip.MemoryCitationEntry(path="m", line_start=1, line_end=1, note="n")),
    ("AsyncUserInputQuestion", ip.AsyncUserInputQuestion(title="t")),
    ("CollabAgentState", it.CollabAgentState(status="errored", message="boom")),
    ("TurnError", s.TURN_ERROR),
    ("TurnError", tu.TurnError(message="m", codex_error_info=s.ERROR_INFOS[2], additional_details="d")),
    ("Turn", s.TURN),
    ("Turn", s.TURN_DONE),
    ("Turn", s.TURN_FAILED),
    (
        "CollaborationMode",
        tu.CollaborationMode(mode="plan", settings=tu.CollaborationSettings(model="gpt-5.5")),
    ),
    ("Settings", tu.CollaborationSettings(model="m", reasoning_effort="low", developer_instructions="d")),
    ("TurnToolOutput", tu.TurnToolOutput(name="t", namespace="ns", output="done", retain=True)),
    ("AdditionalContextEntry", tu.AdditionalContextEntry(kind="untrusted", value="v", name="page")),
    ("AdditionalContextEntry", tu.AdditionalContextEntry(kind="application", value="v")),
    ("TurnEnvironmentParams", tu.TurnEnvironmentParams(environment_id="local", cwd=s.CWD)),
    (
        "TurnEnvironmentParams",
        tu.TurnEnvironmentParams(environment_id="local", cwd=s.CWD, runtime_workspace_roots=[s.CWD]),
    ),
    (
        "TurnStartParams",
        tu.TurnStartParams(
            thread_id=s.THREAD_ID,
            input=s.INPUTS,
            client_user_message_id="c1",
            cwd=s.CWD,
            approval_policy=s.GRANULAR,
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
    ("TurnStartParams", tu.TurnStartParams(thread_id=s.THREAD_ID, input=[s.TEXT])),
    ("TurnStartResponse", tu.TurnStartResponse(turn=s.TURN)),
    (
        "TurnSteerParams",
        tu.TurnSteerParams(thread_id=s.THREAD_ID, input=[s.TEXT], expected_turn_id=s.TURN_ID),
    ),
    ("TurnSteerResponse", tu.TurnSteerResponse(turn_id=s.TURN_ID)),
    ("TurnInterruptParams", tu.TurnInterruptParams(thread_id=s.THREAD_ID, turn_id=s.TURN_ID)),
    ("TurnInterruptResponse", tu.TurnInterruptResponse()),
    ("GitInfo", th.GitInfo(sha="a")),
    ("ThreadSection", th.ThreadSection(id="s", name="n")),
    ("ThreadEnvironment", th.ThreadEnvironment(environment_id="local", cwd=s.CWD)),
    ("ThreadSettings", msgs.THREAD_SETTINGS),
    ("Thread", s.THREAD),
    ("Thread", s.THREAD_FULL),
    ("ActivePermissionProfile", th.ActivePermissionProfile(id=":read-only", extends=":base")),
    ("ThreadStartParams", tl.ThreadStartParams()),
    (
        "ThreadStartParams",
        tl.ThreadStartParams(
            model="gpt-5.5",
            model_provider="openai",
            service_tier="flex",
            cwd=s.CWD,
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
    ("ThreadResumeParams", tl.ThreadResumeParams(thread_id=s.THREAD_ID, exclude_turns=True, after_seq=42)),
    ("ThreadForkParams", tl.ThreadForkParams(thread_id=s.THREAD_ID, last_turn_id=s.TURN_ID, ephemeral=True)),
    ("ThreadStartResponse", tl.ThreadStartResponse(**s.SESSION_RESULT)),
    ("ThreadStartResponse", tl.ThreadSessionResponse(**s.SESSION_RESULT)),
    ("ThreadForkResponse", tl.ThreadForkResponse(**s.SESSION_RESULT)),
    (
        "ThreadResumeResponse",
        tl.ThreadResumeResponse(
            **s.SESSION_RESULT,
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
            cwd=[s.CWD],
            search_term="x",
            excluded_thread_ids=["t"],
            section_id="s",
            use_state_db_only=True,
            current_account_only=False,
            originators=[],
        ),
    ),
    ("ThreadListParams", hi.ThreadListParams(cwd=s.CWD)),
    (
        "ThreadListResponse",
        hi.ThreadListResponse(data=[s.THREAD], next_cursor="c", read_states={s.THREAD_ID: s.READ_STATE}),
    ),
    ("ThreadReadState", s.READ_STATE),
    ("ThreadReadParams", hi.ThreadReadParams(thread_id=s.THREAD_ID, include_turns=True)),
    ("ThreadReadResponse", hi.ThreadReadResponse(thread=s.THREAD, read_state=s.READ_STATE)),
    (
        "ThreadTurnsListParams",
        hi.ThreadTurnsListParams(
            thread_id=s.THREAD_ID, cursor="c", limit=5, sort_direction="desc", items_view="full"
        ),
    ),
    (
        "ThreadTurnsListResponse",
        hi.ThreadTurnsListResponse(data=[s.TURN_DONE], next_cursor="n", backwards_cursor="b"),
    ),
    (
        "ThreadItemsListParams",
        hi.ThreadItemsListParams(
            thread_id=s.THREAD_ID, turn_id=s.TURN_ID, cursor=hi.ThreadItemsListAnchor(item_id="i"), limit=3
        ),
    ),
    (
        "ThreadItemsListParams",
        hi.ThreadItemsListParams(thread_id=s.THREAD_ID, cursor="opaque", sort_direction="asc"),
    ),
    ("ThreadItemOutputDeferral", hi.ThreadItemOutputDeferral(command_execution=True)),
    (
        "ThreadItemEntry",
        hi.ThreadItemEntry(turn_id=s.TURN_ID, item=s.USER_MESSAGE, started_at_ms=s.TS, completed_at_ms=s.TS),
    ),
    (
        "ThreadItemsListResponse",
        hi.ThreadItemsListResponse(data=[hi.ThreadItemEntry(turn_id=s.TURN_ID, item=s.COMMAND)]),
    ),
    ("ThreadLoadedListParams", hi.ThreadLoadedListParams(cursor="c", limit=1)),
    ("ThreadLoadedListResponse", hi.ThreadLoadedListResponse(data=[s.THREAD_ID])),
    ("ThreadArchiveParams", ta.ThreadArchiveParams(thread_id=s.THREAD_ID)),
    ("ThreadArchiveParams", ta.ThreadIdParams(thread_id=s.THREAD_ID)),
    ("ThreadArchiveResponse", ta.ThreadArchiveResponse()),
    ("ThreadUnarchiveParams", ta.ThreadUnarchiveParams(thread_id=s.THREAD_ID)),
    ("ThreadUnarchiveResponse", ta.ThreadUnarchiveResponse(thread=s.THREAD)),
    ("ThreadDeleteParams", ta.ThreadDeleteParams(thread_id=s.THREAD_ID)),
    ("ThreadDeleteResponse", ta.ThreadDeleteResponse()),
    ("ThreadSetNameParams", ta.ThreadSetNameParams(thread_id=s.THREAD_ID, name="n")),
    ("ThreadSetNameResponse", ta.ThreadSetNameResponse()),
    ("ThreadCompactStartParams", ta.ThreadCompactStartParams(thread_id=s.THREAD_ID)),
    ("ThreadCompactStartResponse", ta.ThreadCompactStartResponse()),
    ("ThreadRevertParams", ta.ThreadRevertParams(thread_id=s.THREAD_ID, before_turn_id=s.TURN_ID)),
    ("ThreadRevertResponse", ta.ThreadRevertResponse(thread=s.THREAD, turns_backwards_cursor="t")),
    ("ThreadUnsubscribeParams", ta.ThreadUnsubscribeParams(thread_id=s.THREAD_ID)),
    ("ThreadUnsubscribeResponse", ta.ThreadUnsubscribeResponse(status="unsubscribed")),
    (
        "ThreadShellCommandParams",
        ta.ThreadShellCommandParams(thread_id=s.THREAD_ID, command="ls", timeout_ms=0),
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
            cwd=s.CWD,
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
    ("ModelListResponse", mdl.ModelListResponse(data=[s.MODEL], next_cursor="2")),
    ("Model", s.MODEL),
    ("ReasoningEffortOption", s.MODEL.supported_reasoning_efforts[0]),
    ("ModelServiceTier", s.MODEL.service_tiers[0]),
    ("ModelUpgradeInfo", mdl.ModelUpgradeInfo(model="m", retirement_at=s.TS)),
    ("ModelAvailabilityNux", mdl.ModelAvailabilityNux(message="m")),
    ("ConfigReadParams", cfg.ConfigReadParams(include_layers=True, cwd=s.CWD)),
    (
        "ConfigReadResponse",
        cfg.ConfigReadResponse(
            config={"model": "gpt-5.5", "approval_policy": "on-request", "sandbox_mode": "read-only"},
            origins={"model": cfg.ConfigLayerMetadata(name=cfg.SessionFlagsLayerSource(), version="1")},
            layers=[cfg.ConfigLayer(name=s.LAYER_SOURCES[0], version="v", config={"model": "x"})],
        ),
    ),
    (
        "ConfigLayer",
        cfg.ConfigLayer(name=s.LAYER_SOURCES[1], version="v", config={}, disabled_reason="untrusted"),
    ),
    ("ConfigLayerMetadata", cfg.ConfigLayerMetadata(name=s.LAYER_SOURCES[2], version="v")),
    ("FsReadFileParams", fs.FsReadFileParams(path="/etc/hostname")),
    ("TokenUsageBreakdown", s.USAGE),
    ("ThreadTokenUsage", n.ThreadTokenUsage(total=s.USAGE, last=s.USAGE)),
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
    ("CommandExecutionRequestApprovalParams", msgs.EXEC_APPROVAL),
    (
        "CommandExecutionRequestApprovalParams",
        ap.CommandExecutionRequestApprovalParams(thread_id="t", turn_id="u", item_id="i", started_at_ms=s.TS),
    ),
    (
        "FileChangeRequestApprovalParams",
        ap.FileChangeRequestApprovalParams(
            thread_id="t", turn_id="u", item_id="i", started_at_ms=s.TS, reason="r", grant_root="/work"
        ),
    ),
    ("ToolRequestUserInputParams", msgs.USER_INPUT_REQUEST),
    ("ToolRequestUserInputQuestion", msgs.USER_INPUT_REQUEST.questions[0]),
    ("ToolRequestUserInputOption", ap.ToolRequestUserInputOption(label="l", description="d")),
]

_notification_samples: list[tuple[str, WireModel]] = [
    (type(model).__name__, model) for model in msgs.NOTIFICATION_SAMPLES.values()
]

REFERENCE_SAMPLES: list[tuple[str, WireModel]] = (
    _union_samples + _object_samples + _notification_samples + HOOK_OBJECTS
)
"""(reference definition name, instance) for every model that has a counterpart in the reference."""

SCHEMALESS_MODELS: dict[str, WireModel] = {
    # Helper layers inside reference definitions (validated through their parents above).
    "GranularApprovalSettings": s.GRANULAR.granular,
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
    # Experimental method: the stable reference schema does not describe it.
    "CollaborationModeListParams": collab.CollaborationModeListParams(),
    "CollaborationModeListResponse": collab.CollaborationModeListResponse(
        data=[collab.CollaborationModeMask(name="Plan", mode="plan")]
    ),
    "CollaborationModeMask": collab.CollaborationModeMask(name="Default"),
    "InitializeResponse": ini.InitializeResponse(
        user_agent="a/0.169.0", codex_home="/h", platform_family="unix", platform_os="linux"
    ),
}
"""Models without a same-shaped reference definition (InitializeResponse lives in the v1 folder)."""


REFERENCE_SAMPLES.extend(workspace_samples())
REFERENCE_SAMPLES.extend(mcp_samples())
REFERENCE_SAMPLES.extend(files_samples())
REFERENCE_SAMPLES.extend(settings_samples())
REFERENCE_SAMPLES.extend(section_samples())
REFERENCE_SAMPLES.extend(desktop_samples())
REFERENCE_SAMPLES.extend(skills_samples())
REFERENCE_SAMPLES.extend(plugin_samples())
REFERENCE_SAMPLES.extend(account_extras_samples())
REFERENCE_SAMPLES.extend(process_samples())
SCHEMALESS_MODELS.update(mcp_schemaless())
SCHEMALESS_MODELS.update(files_schemaless())
SCHEMALESS_MODELS.update(plugin_schemaless())
SCHEMALESS_MODELS.update(account_extras_schemaless())
