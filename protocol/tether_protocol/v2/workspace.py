"""What a workspace offers besides threads: hooks, skills, plugins, MCP servers, provider checks."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from tether_protocol.common import JsonValue, WireModel

HookEventName = Literal[
    "preModelRequest",
    "postModelRequest",
    "preToolUse",
    "permissionRequest",
    "postToolUse",
    "preCompact",
    "postCompact",
    "sessionStart",
    "sessionEnd",
    "userPromptSubmit",
    "subagentStart",
    "subagentStop",
    "stop",
    "interrupt",
]


HookSource = Literal[
    "system",
    "user",
    "project",
    "mdm",
    "sessionFlags",
    "plugin",
    "cloudRequirements",
    "cloudManagedConfig",
    "legacyManagedConfigFile",
    "legacyManagedConfigMdm",
    "unknown",
]


class HooksListParams(WireModel):
    """`hooks/list` params: the working directories to inspect (empty: the daemon's cwd)."""

    cwds: list[str] = Field(default_factory=list)
    thread_id: str | None = None


class HookErrorInfo(WireModel):
    """A hook definition that could not be read."""

    path: str
    message: str


def _handler_union(schema: dict[str, Any]) -> None:
    """Codex's schema: the handler's own keys in a `oneOf` by `handlerType`, the rest shared."""
    own = ("handlerType", "command", "async", "server", "tool")
    for name in own:
        schema.get("properties", {}).pop(name, None)
    schema["required"] = [key for key in schema.get("required", []) if key not in own]
    text = {"type": "string"}
    command = {"command": text, "async": {"default": False, "type": "boolean"}}
    schema["oneOf"] = [
        {
            "properties": {"handlerType": {"enum": ["command"], "type": "string"}, **command},
            "required": ["command", "handlerType"],
            "type": "object",
        },
        {
            "properties": {
                "handlerType": {"enum": ["mcpTool"], "type": "string"},
                "server": text,
                "tool": text,
            },
            "required": ["handlerType", "server", "tool"],
            "type": "object",
        },
    ]


class HookMetadata(WireModel):
    """One configured hook: a command (`command`, `async`) or an MCP tool (`server`, `tool`)."""

    key: str
    event_name: HookEventName
    handler_type: Literal["command", "mcpTool"] = "command"
    command: str | None = None
    is_async: bool = Field(default=False, alias="async")
    server: str | None = None
    tool: str | None = None
    matcher: str | None = None
    timeout_sec: int
    status_message: str | None = None
    additional_context_limit: int | None = None
    source_path: str
    source: HookSource = "user"
    plugin_id: str | None = None
    environment_id: str | None = None
    display_order: int
    enabled: bool = True
    is_managed: bool = False
    current_hash: str
    trust_status: Literal["trusted", "untrusted", "modified", "managed"] = "trusted"
    model_config = WireModel.model_config | ConfigDict(json_schema_extra=_handler_union)

    @model_serializer(mode="wrap")
    def _own_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Codex's metadata is a union by handler type: each carries only its own handler keys.
        dumped: dict[str, Any] = handler(self)
        theirs = ("server", "tool") if self.handler_type == "command" else ("command", "async")
        return {k: v for k, v in dumped.items() if k not in theirs}


class HooksListEntry(WireModel):
    """The hooks that apply in one working directory."""

    cwd: str
    hooks: list[HookMetadata] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    errors: list[HookErrorInfo] = Field(default_factory=list)


class HooksListResponse(WireModel):
    """`hooks/list` result."""

    data: list[HooksListEntry]


SkillScope = Literal["user", "repo", "system", "admin"]


class SkillsListParams(WireModel):
    """`skills/list` params."""

    cwds: list[str] = Field(default_factory=list)
    force_reload: bool = False


class SkillMetadata(WireModel):
    """A skill found in a `SKILL.md` file."""

    name: str
    description: str
    path: str
    scope: SkillScope
    enabled: bool = True
    short_description: str | None = None
    plugin_id: str | None = None


class SkillErrorInfo(WireModel):
    """A `SKILL.md` that could not be read."""

    path: str
    message: str


class SkillsListEntry(WireModel):
    """The skills visible from one working directory."""

    cwd: str
    skills: list[SkillMetadata] = Field(default_factory=list)
    errors: list[SkillErrorInfo] = Field(default_factory=list)


class SkillsListResponse(WireModel):
    """`skills/list` result."""

    data: list[SkillsListEntry]


class PluginInstalledParams(WireModel):
    """`plugin/installed` params."""

    cwds: list[str] | None = None
    install_suggestion_plugin_names: list[str] | None = None


class PluginInstalledResponse(WireModel):
    """`plugin/installed` result; Tether has no plugin marketplaces, so both lists are empty."""

    marketplaces: list[JsonValue] = Field(default_factory=list)
    marketplace_load_errors: list[JsonValue] = Field(default_factory=list)


class BedrockCheckGovCloudRequirementsResponse(WireModel):
    """Tether has no Bedrock provider: never GovCloud, nothing to warn about."""

    is_gov_cloud: bool = False
    should_warn: bool = False
