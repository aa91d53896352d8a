"""Pieces of thread items: command actions, patch changes, web-search actions, MCP results."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import JsonValue, WireModel


class ReadCommandAction(WireModel):
    """The command reads a file."""

    type: Literal["read"] = "read"
    command: str
    name: str
    path: str


class ListFilesCommandAction(WireModel):
    """The command lists a directory."""

    type: Literal["listFiles"] = "listFiles"
    command: str
    path: str | None = None


class SearchCommandAction(WireModel):
    """The command searches file contents."""

    type: Literal["search"] = "search"
    command: str
    query: str | None = None
    path: str | None = None


class UnknownCommandAction(WireModel):
    """Anything the parser could not classify."""

    type: Literal["unknown"] = "unknown"
    command: str


CommandAction = TypeAliasType(
    "CommandAction",
    Annotated[
        ReadCommandAction | ListFilesCommandAction | SearchCommandAction | UnknownCommandAction,
        Field(discriminator="type"),
    ],
)


class AddChange(WireModel):
    """A new file; the change's `diff` holds the file content."""

    type: Literal["add"] = "add"


class DeleteChange(WireModel):
    """A removed file."""

    type: Literal["delete"] = "delete"


class UpdateChange(WireModel):
    """An edited file, possibly moved (`move_path` is snake_case on the wire)."""

    type: Literal["update"] = "update"
    move_path: str | None = Field(default=None, alias="move_path")


PatchChangeKind = TypeAliasType(
    "PatchChangeKind", Annotated[AddChange | DeleteChange | UpdateChange, Field(discriminator="type")]
)


class FileUpdateChange(WireModel):
    """One file touched by a `fileChange` item."""

    path: str
    kind: PatchChangeKind
    diff: str


class SearchWebAction(WireModel):
    """A web search with one or more queries."""

    type: Literal["search"] = "search"
    query: str | None = None
    queries: list[str] | None = None


class OpenPageWebAction(WireModel):
    """Opening a result page."""

    type: Literal["openPage"] = "openPage"
    url: str | None = None


class FindInPageWebAction(WireModel):
    """Searching inside an opened page."""

    type: Literal["findInPage"] = "findInPage"
    url: str | None = None
    pattern: str | None = None


class OtherWebAction(WireModel):
    """Any other web-search step."""

    type: Literal["other"] = "other"


WebSearchAction = TypeAliasType(
    "WebSearchAction",
    Annotated[
        SearchWebAction | OpenPageWebAction | FindInPageWebAction | OtherWebAction,
        Field(discriminator="type"),
    ],
)


class McpToolCallResult(WireModel):
    """What an MCP server returned for a tool call."""

    content: list[JsonValue] = Field(default_factory=list)
    structured_content: JsonValue = None
    meta: JsonValue = Field(default=None, alias="_meta")


class McpToolCallError(WireModel):
    """Why an MCP tool call failed."""

    message: str


class McpToolCallAppContext(WireModel):
    """The app (connector) behind an MCP tool call."""

    connector_id: str
    app_name: str | None = None
    action_name: str | None = None
    link_id: str | None = None
    resource_uri: str | None = None


class McpAppUi(WireModel):
    """UI resource an MCP app offers for a call."""

    resource_uri: str
    preferred_model_display_mode: str


class InputTextContentItem(WireModel):
    """Text returned by a dynamic tool."""

    type: Literal["inputText"] = "inputText"
    text: str


class InputImageContentItem(WireModel):
    """An image returned by a dynamic tool."""

    type: Literal["inputImage"] = "inputImage"
    image_url: str


class InputAudioContentItem(WireModel):
    """Audio returned by a dynamic tool."""

    type: Literal["inputAudio"] = "inputAudio"
    audio_url: str


DynamicToolCallOutputContentItem = TypeAliasType(
    "DynamicToolCallOutputContentItem",
    Annotated[
        InputTextContentItem | InputImageContentItem | InputAudioContentItem, Field(discriminator="type")
    ],
)


class AgentMessageModeration(WireModel):
    """Moderation verdict on an agent message."""

    moderated: bool
    display: JsonValue = None


class MemoryCitationEntry(WireModel):
    """One memory line range cited by an agent message."""

    path: str
    line_start: int
    line_end: int
    note: str


class MemoryCitation(WireModel):
    """Memories an agent message relied on."""

    entries: list[MemoryCitationEntry] = Field(default_factory=list)
    thread_ids: list[str] = Field(default_factory=list)


class AsyncUserInputQuestion(WireModel):
    """A question an agent message asks asynchronously."""

    title: str
    options: list[str] | None = None
