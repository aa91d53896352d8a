"""THE method table: every wire method Tether knows, with its types.

Dispatch, schema export, the SDK and the docs all read these three tables; adding a method means
adding its models and one constant here (and one handler in the server's processor map, which is
checked against this table both ways). Each client method is also a named constant, typed by its
params and result models, so that the server binds handlers to it with a static type check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol import methods_accounts as _accounts
from tether_protocol import methods_desktop as _desktop
from tether_protocol import methods_goals as _goals
from tether_protocol import methods_plugins as _plugins
from tether_protocol import methods_processes as _processes
from tether_protocol import methods_projects as _projects
from tether_protocol import methods_queue as _queue
from tether_protocol import methods_sections as _sections
from tether_protocol import methods_settings as _settings
from tether_protocol import methods_skills as _skills
from tether_protocol import methods_timeline as _timeline
from tether_protocol import methods_workspace as _workspace
from tether_protocol.common import EmptyParams, EmptyResult
from tether_protocol.lazy_models import models
from tether_protocol.server_methods import SERVER_NOTIFICATIONS as SERVER_NOTIFICATIONS
from tether_protocol.server_methods import SERVER_REQUESTS as SERVER_REQUESTS
from tether_protocol.spec import AnyMethodSpec, MethodSpec
from tether_protocol.v2.initialize import InitializeParams, InitializeResponse

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import account as acct
    from tether_protocol.v2 import collaboration as collab
    from tether_protocol.v2 import command as cmd
    from tether_protocol.v2 import config as cfg
    from tether_protocol.v2 import fs, mcp
    from tether_protocol.v2 import model as mdl
    from tether_protocol.v2 import thread_admin as ta
    from tether_protocol.v2 import thread_extras as tx
    from tether_protocol.v2 import thread_history as th
    from tether_protocol.v2 import thread_lifecycle as tl
    from tether_protocol.v2 import turn as tu
    from tether_protocol.v2 import workspace as ws
else:
    acct = models("tether_protocol.v2.account")
    collab = models("tether_protocol.v2.collaboration")
    cmd = models("tether_protocol.v2.command")
    cfg = models("tether_protocol.v2.config")
    fs = models("tether_protocol.v2.fs")
    mcp = models("tether_protocol.v2.mcp")
    mdl = models("tether_protocol.v2.model")
    ta = models("tether_protocol.v2.thread_admin")
    tx = models("tether_protocol.v2.thread_extras")
    th = models("tether_protocol.v2.thread_history")
    tl = models("tether_protocol.v2.thread_lifecycle")
    tu = models("tether_protocol.v2.turn")
    ws = models("tether_protocol.v2.workspace")

_T = "thread_id"


def _exp(*names: str) -> frozenset[str]:
    return frozenset(names)


INITIALIZE = MethodSpec(
    "initialize", InitializeParams, InitializeResponse, doc="Handshake; once per connection."
)
THREAD_START = MethodSpec(
    "thread/start",
    tl.ThreadStartParams,
    tl.ThreadStartResponse,
    experimental_fields=_exp(
        "permissions",
        "runtimeWorkspaceRoots",
        "historyMode",
        "environments",
        "dynamicTools",
        "projectId",
        "daybreakEnabled",
        "selectedCapabilityRoots",
        "allowProviderModelFallback",
        "experimentalRawEvents",
        "multiAgentMode",
        "mockExperimentalField",
    ),
    doc="Create a thread and subscribe the caller.",
)
THREAD_RESUME = MethodSpec(
    "thread/resume",
    tl.ThreadResumeParams,
    tl.ThreadResumeResponse,
    scope=_T,
    experimental_fields=_exp("history", "path", "runtimeWorkspaceRoots", "permissions", "initialTurnsPage"),
    doc="Load (or join) a stored thread and subscribe the caller.",
)
THREAD_FORK = MethodSpec(
    "thread/fork",
    tl.ThreadForkParams,
    tl.ThreadForkResponse,
    scope=_T,
    experimental_fields=_exp(
        "beforeTurnId", "path", "attachToSource", "deferGoalContinuation", "experimentalPredictionMode"
    ),
    doc="Copy a thread's history (up to lastTurnId) into a new thread.",
)
THREAD_LIST = MethodSpec(
    "thread/list",
    th.ThreadListParams,
    th.ThreadListResponse,
    experimental_fields=_exp(
        "projectId", "parentThreadId", "ancestorThreadId", "attachedToThreadId", "includeAttachedThreads"
    ),
    doc="Page through stored threads that have a user message.",
)
THREAD_READ = MethodSpec(
    "thread/read", th.ThreadReadParams, th.ThreadReadResponse, scope=_T, doc="Read one thread's metadata."
)
THREAD_TURNS_LIST = MethodSpec(
    "thread/turns/list", th.ThreadTurnsListParams, th.ThreadTurnsListResponse, doc="Page through turns."
)
THREAD_ITEMS_LIST = MethodSpec(
    "thread/items/list",
    th.ThreadItemsListParams,
    th.ThreadItemsListResponse,
    experimental_fields=_exp("deferOutput"),
    doc="Page through items, optionally within one turn.",
)
THREAD_ARCHIVE = MethodSpec(
    "thread/archive",
    ta.ThreadArchiveParams,
    ta.ThreadArchiveResponse,
    scope=_T,
    doc="Unload and move to the archive.",
)
THREAD_UNARCHIVE = MethodSpec(
    "thread/unarchive",
    ta.ThreadUnarchiveParams,
    ta.ThreadUnarchiveResponse,
    scope=_T,
    doc="Move back out of the archive.",
)
THREAD_DELETE = MethodSpec(
    "thread/delete", ta.ThreadDeleteParams, ta.ThreadDeleteResponse, scope=_T, doc="Hard-delete a thread."
)
THREAD_NAME_SET = MethodSpec(
    "thread/name/set", ta.ThreadSetNameParams, ta.ThreadSetNameResponse, scope=_T, doc="Rename a thread."
)
THREAD_COMPACT_START = MethodSpec(
    "thread/compact/start",
    ta.ThreadCompactStartParams,
    ta.ThreadCompactStartResponse,
    scope=_T,
    doc="Compact history in a new turn.",
)
THREAD_REVERT = MethodSpec(
    "thread/revert",
    ta.ThreadRevertParams,
    ta.ThreadRevertResponse,
    scope=_T,
    doc="Drop history from beforeTurnId on.",
)
THREAD_UNSUBSCRIBE = MethodSpec(
    "thread/unsubscribe",
    ta.ThreadUnsubscribeParams,
    ta.ThreadUnsubscribeResponse,
    scope=_T,
    doc="Stop receiving this thread's events.",
)
THREAD_LOADED_LIST = MethodSpec(
    "thread/loaded/list",
    th.ThreadLoadedListParams,
    th.ThreadLoadedListResponse,
    doc="Ids of threads in memory.",
)
THREAD_SHELL_COMMAND = MethodSpec(
    "thread/shellCommand",
    ta.ThreadShellCommandParams,
    ta.ThreadShellCommandResponse,
    scope=_T,
    doc="Run a user shell command (unsandboxed) inside the thread.",
)
TURN_START = MethodSpec(
    "turn/start",
    tu.TurnStartParams,
    tu.TurnStartResponse,
    scope=_T,
    experimental_fields=_exp(
        "collaborationMode",
        "permissions",
        "environments",
        "runtimeWorkspaceRoots",
        "responsesapiClientMetadata",
        "responsesapiClientMetadataPatch",
        "additionalContext",
        "cyberAccessProgram",
        "multiAgentMode",
    ),
    doc="Start a turn (or steer into the active one).",
)
TURN_STEER = MethodSpec(
    "turn/steer", tu.TurnSteerParams, tu.TurnSteerResponse, scope=_T, doc="Add input to the active turn."
)
TURN_INTERRUPT = MethodSpec(
    "turn/interrupt",
    tu.TurnInterruptParams,
    tu.TurnInterruptResponse,
    scope=_T,
    doc="Stop the active turn.",
)
COMMAND_EXEC = MethodSpec(
    "command/exec",
    cmd.CommandExecParams,
    cmd.CommandExecResponse,
    experimental_fields=_exp("permissionProfile"),
    doc="Run a standalone process; answers when it exits.",
)
COMMAND_EXEC_WRITE = MethodSpec(
    "command/exec/write",
    cmd.CommandExecWriteParams,
    cmd.CommandExecWriteResponse,
    doc="Write to (or close) a process's stdin.",
)
COMMAND_EXEC_RESIZE = MethodSpec(
    "command/exec/resize",
    cmd.CommandExecResizeParams,
    cmd.CommandExecResizeResponse,
    doc="Resize a process's PTY.",
)
COMMAND_EXEC_TERMINATE = MethodSpec(
    "command/exec/terminate",
    cmd.CommandExecTerminateParams,
    cmd.CommandExecTerminateResponse,
    doc="Kill a process.",
)
MODEL_LIST = MethodSpec(
    "model/list", mdl.ModelListParams, mdl.ModelListResponse, doc="Page through the model catalog."
)
ACCOUNT_READ = MethodSpec(
    "account/read", acct.GetAccountParams, acct.GetAccountResponse, doc="The account in use."
)
ACCOUNT_LOGIN_START = MethodSpec(
    "account/login/start",
    acct.LoginAccountParams,
    acct.LoginAccountResponse,
    doc="Store an API key (ChatGPT sign-in is refused).",
)
ACCOUNT_LOGOUT = MethodSpec("account/logout", EmptyParams, EmptyResult, doc="Forget the stored API key.")
COLLABORATION_MODE_LIST = MethodSpec(
    "collaborationMode/list",
    collab.CollaborationModeListParams,
    collab.CollaborationModeListResponse,
    experimental=True,
    doc="Collaboration mode presets (experimental).",
)
CONFIG_READ = MethodSpec(
    "config/read", cfg.ConfigReadParams, cfg.ConfigReadResponse, doc="Read the effective config."
)
FS_READ_FILE = MethodSpec(
    "fs/readFile", fs.FsReadFileParams, fs.FsReadFileResponse, doc="Read a file by absolute path."
)
CONFIG_VALUE_WRITE = MethodSpec(
    "config/value/write",
    cfg.ConfigValueWriteParams,
    cfg.ConfigWriteResponse,
    doc="Set one key in config.toml, keeping its comments.",
)
CONFIG_BATCH_WRITE = MethodSpec(
    "config/batchWrite",
    cfg.ConfigBatchWriteParams,
    cfg.ConfigWriteResponse,
    doc="Set several keys in config.toml at once; optionally reload the daemon's config.",
)
CONFIG_REQUIREMENTS_READ = MethodSpec(
    "configRequirements/read",
    EmptyParams,
    cfg.ConfigRequirementsReadResponse,
    doc="Managed requirements (none in Tether).",
)
HOOKS_LIST = MethodSpec("hooks/list", ws.HooksListParams, ws.HooksListResponse, doc="Hooks from config.")
SKILLS_LIST = MethodSpec(
    "skills/list", ws.SkillsListParams, ws.SkillsListResponse, doc="Skills found in SKILL.md files."
)
ACCOUNT_BEDROCK_CHECK = MethodSpec(
    "account/bedrock/checkGovCloudRequirements",
    EmptyParams,
    ws.BedrockCheckGovCloudRequirementsResponse,
    experimental=True,
    doc="Bedrock GovCloud advisory check (experimental; never applies).",
)
THREAD_SEARCH = MethodSpec(
    "thread/search",
    tx.ThreadSearchParams,
    tx.ThreadSearchResponse,
    experimental=True,
    doc="Full-text search over stored threads (experimental).",
)
THREAD_READ_STATE_UPDATE = MethodSpec(
    "thread/readState/update",
    tx.ThreadReadStateUpdateParams,
    tx.ThreadReadStateUpdateResponse,
    scope=_T,
    experimental=True,
    doc="Mark a thread read or unread (experimental).",
)
THREAD_SETTINGS_UPDATE = MethodSpec(
    "thread/settings/update",
    tx.ThreadSettingsUpdateParams,
    tx.ThreadSettingsUpdateResponse,
    scope=_T,
    experimental=True,
    doc="Change the settings of a thread's next turns (experimental).",
)
MCP_SERVER_STATUS_LIST = MethodSpec(
    "mcpServerStatus/list",
    mcp.ListMcpServerStatusParams,
    mcp.ListMcpServerStatusResponse,
    doc="Configured MCP servers: connection, tools, resources.",
)
CONFIG_MCP_SERVER_RELOAD = MethodSpec(
    "config/mcpServer/reload",
    EmptyParams,
    mcp.McpServerRefreshResponse,
    doc="Re-read mcp_servers and restart the servers.",
)
MCP_SERVER_TOOL_CALL = MethodSpec(
    "mcpServer/tool/call",
    mcp.McpServerToolCallParams,
    mcp.McpServerToolCallResponse,
    doc="Call an MCP server's tool directly.",
)
MCP_SERVER_RESOURCE_READ = MethodSpec(
    "mcpServer/resource/read",
    mcp.McpResourceReadParams,
    mcp.McpResourceReadResponse,
    doc="Read a resource of an MCP server.",
)

# Every client method above and in methods_settings, methods_goals and methods_sections, in the
# order defined: a new method is one constant, nothing more.
CLIENT_METHODS: dict[str, AnyMethodSpec] = {
    spec.name: spec
    for spec in [
        *globals().values(),
        *vars(_workspace).values(),
        *vars(_settings).values(),
        *vars(_goals).values(),
        *vars(_processes).values(),
        *vars(_timeline).values(),
        *vars(_plugins).values(),
        *vars(_sections).values(),
        *vars(_desktop).values(),
        *vars(_queue).values(),
        *vars(_projects).values(),
        *vars(_accounts).values(),
        *vars(_skills).values(),
    ]
    if isinstance(spec, MethodSpec)
}
