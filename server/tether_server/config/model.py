"""The validated configuration: Codex's config.toml key names, Tether's defaults."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    Tag,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from tether_server.config.builtins import BUILTIN_PROVIDERS, DEFAULT_MODEL, DEFAULT_PROVIDER
from tether_server.config.oss import resolve_oss
from tether_server.config.provider import ModelProviderInfo, show

ApprovalMode = Literal["untrusted", "on-request", "never"]
SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
ReasoningSummary = Literal["auto", "concise", "detailed", "none"]
Verbosity = Literal["low", "medium", "high"]
ApprovalsReviewer = Literal["user", "auto_review", "guardian_subagent"]
Personality = Literal["none", "friendly", "pragmatic"]
CredentialsStore = Literal["file", "keyring", "auto", "ephemeral"]


class _Table(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", protected_namespaces=())


class GranularApproval(_Table):
    """Per-category switches: a `false` category is auto-rejected instead of prompting."""

    sandbox_approval: StrictBool
    rules: StrictBool
    mcp_elicitations: StrictBool
    skill_approval: StrictBool = False
    request_permissions: StrictBool = False


class GranularApprovalPolicy(_Table):
    """`approval_policy = { granular = { … } }`."""

    granular: GranularApproval


def _approval_kind(value: Any) -> str:
    return "table" if isinstance(value, dict | GranularApprovalPolicy) else "mode"


ApprovalPolicy = Annotated[
    Annotated[ApprovalMode, Tag("mode")] | Annotated[GranularApprovalPolicy, Tag("table")],
    Discriminator(_approval_kind),
]


class SandboxWorkspaceWrite(_Table):
    """`[sandbox_workspace_write]`: what workspace-write mode may touch."""

    writable_roots: tuple[StrictStr, ...] = ()
    network_access: StrictBool = False
    exclude_tmpdir_env_var: StrictBool = False
    exclude_slash_tmp: StrictBool = False


class ShellEnvironmentPolicy(_Table):
    """`[shell_environment_policy]`: how a spawned command's environment is built.

    Unlike Codex, `ignore_default_excludes` defaults to False: names matching `*KEY*`,
    `*SECRET*` or `*TOKEN*` are dropped unless the user opts back in.
    """

    inherit: Literal["all", "core", "none"] = "all"
    ignore_default_excludes: StrictBool = False
    exclude: tuple[StrictStr, ...] = ()
    include_only: tuple[StrictStr, ...] = ()
    set: dict[str, StrictStr] = Field(default_factory=dict)
    experimental_use_profile: StrictBool = False


class TetherSettings(_Table):
    """`[tether]`: keys only Tether reads.

    `sandbox_readable_credentials`: names among `.aws`, `.ssh`, `.gnupg`, `.netrc`, `.docker`,
    `.git-credentials`, `.config/gh`, `.kube`, `.npmrc`, `.pypirc`, ... (`sandbox.hidden.CREDENTIAL_NAMES`)
    in the daemon user's home that sandboxed commands may still read (all are hidden by default).
    """

    sandbox_readable_credentials: tuple[StrictStr, ...] = ()
    metrics: StrictBool = False
    # How long a dynamic tool call (item/tool/call) waits for a client before it fails.
    dynamic_tool_timeout_sec: StrictInt | float = Field(default=300, gt=0)
    # ChatGPT sign-in: where the OAuth issuer is and the loopback port its redirect comes back
    # to (Codex hard-wires https://auth.openai.com and 1455; 0 picks a free port).
    chatgpt_issuer: StrictStr = "https://auth.openai.com"
    chatgpt_login_port: StrictInt = Field(default=1455, ge=0, le=65535)


OtlpKind = Literal["otlp-http", "otlp-grpc"]


class OtlpExporter(_Table):
    """One OTLP exporter's settings: `{ otlp-http = { endpoint = …, headers = { … } } }`."""

    endpoint: StrictStr | None = None
    protocol: Literal["binary", "json"] = "binary"
    headers: dict[str, StrictStr] = Field(default_factory=dict)
    tls: dict[str, Any] | None = None


OtelExporter = Literal["none", "otlp-http", "otlp-grpc"] | dict[OtlpKind, OtlpExporter]


class OtelSettings(_Table):
    """`[otel]`, with Codex's keys: `exporter` sends logs, `trace_exporter` spans.

    Prompts are never exported, so `log_user_prompt` is accepted and has nothing to reveal.
    An exporter is `"none"`, a kind (`"otlp-http"`, `"otlp-grpc"`, with the OTLP defaults and
    `OTEL_EXPORTER_OTLP_*` variables) or a table `{ otlp-http = { endpoint = …, headers = … } }`.
    """

    environment: StrictStr = "dev"
    exporter: OtelExporter = "none"
    trace_exporter: OtelExporter = "none"
    metrics_exporter: Any = None
    log_user_prompt: StrictBool = False


def _builtin_providers() -> dict[str, ModelProviderInfo]:
    return {pid: ModelProviderInfo.model_validate(table) for pid, table in BUILTIN_PROVIDERS.items()}


class Config(_Table):
    """The effective configuration. Field names are config.toml keys.

    Fields typed `Any` at the end are Codex keys accepted and ignored (see
    `builtins.PASSTHROUGH_KEYS`).
    """

    model: StrictStr = Field(default=DEFAULT_MODEL, min_length=1)
    model_provider: StrictStr = Field(default=DEFAULT_PROVIDER, min_length=1)
    oss_provider: Literal["ollama", "lmstudio"] | None = None
    model_providers: dict[str, ModelProviderInfo] = Field(default_factory=_builtin_providers)
    openai_base_url: StrictStr | None = None
    model_reasoning_effort: StrictStr | None = Field(default=None, min_length=1)
    model_reasoning_summary: ReasoningSummary | None = None
    model_verbosity: Verbosity | None = None
    model_context_window: StrictInt | None = Field(default=None, gt=0)
    model_auto_compact_token_limit: StrictInt | None = Field(default=None, gt=0)
    tool_output_token_limit: StrictInt | None = Field(default=None, gt=0)
    service_tier: StrictStr | None = None
    personality: Personality | None = None

    approval_policy: ApprovalPolicy = "on-request"
    approvals_reviewer: ApprovalsReviewer = "user"
    sandbox_mode: SandboxMode = "read-only"
    sandbox_workspace_write: SandboxWorkspaceWrite = Field(default_factory=SandboxWorkspaceWrite)
    shell_environment_policy: ShellEnvironmentPolicy = Field(default_factory=ShellEnvironmentPolicy)
    allow_login_shell: StrictBool = True
    background_terminal_max_timeout: StrictInt = Field(default=300_000, gt=0)

    instructions: StrictStr | None = None
    developer_instructions: StrictStr | None = None
    model_instructions_file: StrictStr | None = None
    compact_prompt: StrictStr | None = None
    project_doc_max_bytes: StrictInt = Field(default=32_768, ge=0)
    project_doc_fallback_filenames: tuple[StrictStr, ...] = ()
    project_root_markers: tuple[StrictStr, ...] = (".git",)

    thread_unload_delay_secs: StrictInt = Field(default=60, ge=0)
    # Where `tether login` keeps the API key; unset means "file" (Codex's default).
    cli_auth_credentials_store: CredentialsStore | None = None
    # Where threads are stored (`--store`, `$TETHER_STORE` win): sqlite:///PATH or postgresql://…
    store: StrictStr | None = None

    profile: StrictStr | None = None
    profiles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    tether: TetherSettings = Field(default_factory=TetherSettings)
    otel: OtelSettings | None = None

    agents: Any = None
    analytics: Any = None
    apps: Any = None
    chatgpt_base_url: Any = None
    check_for_update_on_startup: Any = None
    default_permissions: Any = None
    disable_paste_burst: Any = None
    experimental_compact_prompt_file: Any = None
    experimental_use_freeform_apply_patch: Any = None
    experimental_use_rmcp_client: Any = None
    features: Any = None
    file_opener: Any = None
    forced_chatgpt_workspace_id: Any = None
    forced_login_method: Any = None
    hide_agent_reasoning: Any = None
    history: Any = None
    hooks: Any = None
    include_apps_instructions: Any = None
    include_environment_context: Any = None
    include_permissions_instructions: Any = None
    log_dir: Any = None
    mcp_oauth_credentials_store: Any = None
    mcp_servers: Any = None
    model_catalog_json: Any = None
    model_reasoning_summary_format: Any = None
    model_supports_reasoning_summaries: Any = None
    notice: Any = None
    notify: Any = None
    permissions: Any = None
    plugins: Any = None
    preferred_auth_method: Any = None
    projects: Any = None
    review_model: Any = None
    show_raw_agent_reasoning: Any = None
    skills: Any = None
    sqlite_home: Any = None
    tools: Any = None
    tui: Any = None
    web_search: Literal["live", "cached", "indexed", "disabled"] | None = None
    windows: Any = None
    windows_wsl_setup_acknowledged: Any = None

    @model_validator(mode="before")
    @classmethod
    def _oss(cls, value: object) -> object:
        return resolve_oss(value) if isinstance(value, dict) else value

    @field_validator("approval_policy", mode="before")
    @classmethod
    def _approval_shape(cls, value: object) -> object:
        if isinstance(value, dict | GranularApprovalPolicy) or value in get_args(ApprovalMode):
            return value
        raise PydanticCustomError(
            "config_value",
            "expected one of on-request, never or a { granular = { … } } table, got {got}",
            {"got": show(value)},
        )

    @property
    def provider(self) -> ModelProviderInfo:
        """The entry `model_provider` selects (the loader guarantees it exists)."""
        return self.model_providers[self.model_provider]

    @property
    def provider_name(self) -> str:
        """The selected provider's display name."""
        return self.provider.display_name(self.model_provider)
