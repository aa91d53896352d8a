"""The `ThreadItem` union: everything that happens inside a turn."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.v2.inputs import UserInput
from tether_protocol.v2.item_parts import (
    AgentMessageModeration,
    AsyncUserInputQuestion,
    CommandAction,
    DynamicToolCallOutputContentItem,
    FileUpdateChange,
    McpAppUi,
    McpToolCallAppContext,
    McpToolCallError,
    McpToolCallResult,
    MemoryCitation,
    WebSearchAction,
)

MessagePhase = Literal["commentary", "partial_answer", "final_answer"]
CommandExecutionSource = Literal["agent", "userShell", "unifiedExecStartup", "unifiedExecInteraction"]
CommandExecutionStatus = Literal["inProgress", "completed", "failed", "declined"]
PatchApplyStatus = Literal["inProgress", "completed", "failed", "declined"]
McpToolCallStatus = Literal["inProgress", "completed", "failed"]
DynamicToolCallStatus = Literal["inProgress", "completed", "failed"]


class ItemBase(WireModel):
    """Fields every item carries."""

    id: str
    started_at_ms: int | None = None
    completed_at_ms: int | None = None


class UserMessageItem(ItemBase):
    """What the user sent; `clientId` echoes `clientUserMessageId`."""

    type: Literal["userMessage"] = "userMessage"
    client_id: str | None = None
    content: list[UserInput]


class AgentMessageItem(ItemBase):
    """Text the model wrote; the id is the Responses message id."""

    type: Literal["agentMessage"] = "agentMessage"
    text: str
    phase: MessagePhase | None = None
    moderation: AgentMessageModeration | None = None
    memory_citation: MemoryCitation | None = None
    delivery: Literal["async"] | None = None
    questions: list[AsyncUserInputQuestion] | None = None


class ReasoningItem(ItemBase):
    """Reasoning summary parts and raw reasoning text."""

    type: Literal["reasoning"] = "reasoning"
    summary: list[str] = Field(default_factory=list)
    content: list[str] = Field(default_factory=list)


class PlanItem(ItemBase):
    """A plan written in plan mode."""

    type: Literal["plan"] = "plan"
    text: str


class CommandExecutionItem(ItemBase):
    """A shell command the agent (or the user, via `thread/shellCommand`) ran."""

    type: Literal["commandExecution"] = "commandExecution"
    command: str
    cwd: str
    process_id: str | None = None
    source: CommandExecutionSource = "agent"
    status: CommandExecutionStatus
    command_actions: list[CommandAction] = Field(default_factory=list)
    aggregated_output: str | None = None
    exit_code: int | None = None
    duration_ms: int | None = None
    plugin_id: str | None = None
    script_path: str | None = None


class FileChangeItem(ItemBase):
    """A patch the agent applied."""

    type: Literal["fileChange"] = "fileChange"
    changes: list[FileUpdateChange]
    status: PatchApplyStatus


class McpToolCallItem(ItemBase):
    """A call to an MCP server tool."""

    type: Literal["mcpToolCall"] = "mcpToolCall"
    server: str
    tool: str
    status: McpToolCallStatus
    arguments: JsonValue = None
    result: McpToolCallResult | None = None
    error: McpToolCallError | None = None
    duration_ms: int | None = None
    app_context: McpToolCallAppContext | None = None
    mcp_app_ui: McpAppUi | None = None
    plugin_id: str | None = None
    read_only_hint: bool | None = None
    mcp_app_resource_uri: str | None = None


class DynamicToolCallItem(ItemBase):
    """A call to a client-provided dynamic tool."""

    type: Literal["dynamicToolCall"] = "dynamicToolCall"
    namespace: str | None = None
    tool: str
    arguments: JsonValue = None
    status: DynamicToolCallStatus
    content_items: list[DynamicToolCallOutputContentItem] | None = None
    success: bool | None = None
    duration_ms: int | None = None


class WebSearchItem(ItemBase):
    """A web search the model ran."""

    type: Literal["webSearch"] = "webSearch"
    query: str
    action: WebSearchAction | None = None
    results: list[JsonValue] | None = None


class ContextCompactionItem(ItemBase):
    """History was compacted."""

    type: Literal["contextCompaction"] = "contextCompaction"


class HookPromptFragment(WireModel):
    """What one hook asked the agent to go on with, and which run asked."""

    text: str
    hook_run_id: str


class HookPromptItem(ItemBase):
    """A Stop hook's answer that keeps the turn going: its reasons, sent to the model as a prompt."""

    type: Literal["hookPrompt"] = "hookPrompt"
    fragments: list[HookPromptFragment]


class ImageViewItem(ItemBase):
    """The model viewed a local image."""

    type: Literal["imageView"] = "imageView"
    path: str


CollabAgentTool = Literal[
    "spawnAgent",
    "sendInput",
    "resumeAgent",
    "wait",
    "closeAgent",
    "sendMessage",
    "followupTask",
    "interruptAgent",
    "listAgents",
]
CollabAgentStatus = Literal[
    "pendingInit", "running", "interrupted", "completed", "errored", "shutdown", "notFound"
]


class CollabAgentState(WireModel):
    """A sub-agent's status as a collab tool call saw it, with its final message if any."""

    status: CollabAgentStatus
    message: str | None = None


class CollabAgentToolCallItem(ItemBase):
    """A call of a sub-agent tool: the thread that called it and the agents (threads) it reached."""

    type: Literal["collabAgentToolCall"] = "collabAgentToolCall"
    tool: CollabAgentTool
    status: Literal["inProgress", "completed", "failed", "interrupted"]
    sender_thread_id: str
    receiver_thread_ids: list[str]
    prompt: str | None = None
    model: str | None = None
    reasoning_effort: str | None = None
    agents_states: dict[str, CollabAgentState]


class EnteredReviewModeItem(ItemBase):
    """A review turn started."""

    type: Literal["enteredReviewMode"] = "enteredReviewMode"
    review: str


class ExitedReviewModeItem(ItemBase):
    """A review turn finished."""

    type: Literal["exitedReviewMode"] = "exitedReviewMode"
    review: str


ThreadItem = TypeAliasType(
    "ThreadItem",
    Annotated[
        UserMessageItem
        | HookPromptItem
        | AgentMessageItem
        | ReasoningItem
        | PlanItem
        | CommandExecutionItem
        | FileChangeItem
        | McpToolCallItem
        | DynamicToolCallItem
        | WebSearchItem
        | ContextCompactionItem
        | ImageViewItem
        | CollabAgentToolCallItem
        | EnteredReviewModeItem
        | ExitedReviewModeItem,
        Field(discriminator="type"),
    ],
)
