"""Codex 0.169.0's feature flags, as `experimentalFeature/list` lists them, and their effective state.

Tether acts on none of these flags: the list is Codex's, so that a settings page written for Codex
shows the same entries and a `[features]` table copied from Codex reads back the same. A flag is
enabled by `features.<name>` in the config if set (config.toml or `-c`), else by runtime
enablement, else by default: Codex 0.169.0 lets the config win over `enablement/set`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, cast

Stage = Literal["beta", "underDevelopment", "stable", "deprecated", "removed"]

# The flags `experimentalFeature/enablement/set` applies; Codex ignores (and logs) every other name.
RUNTIME_TOGGLEABLE: frozenset[str] = frozenset(
    {
        "api_key_cyber_access_programs",
        "api_key_model_discovery",
        "auth_elicitation",
        "background_paginated_rollout_migration",
        "codex_apps_mcp_2026_07_28",
        "daybreak_program_propagation",
        "mcp_2026_07_28",
        "mcp_connection_sharing",
        "mcp_lazy_stdio_startup",
        "memories",
        "mentions_v2",
        "remote_control",
        "remote_plugin",
        "tool_suggest",
        "windows_sandbox_service",
    }
)


@dataclass(frozen=True)
class Feature:
    """One flag: its config key, stage, default, and the copy Codex shows for beta flags."""

    name: str
    stage: Stage
    default_enabled: bool
    display_name: str | None = None
    description: str | None = None
    announcement: str | None = None


_BETA_COPY: dict[str, tuple[str, str, str]] = {
    "analytics_plan_history": (
        "Analytics plan history",
        "Preview five-hour and weekly allowance history for consumer accounts in /analytics.",
        "",
    ),
    "login_shell_package_path": (
        "Bundled tools in login shells",
        "Keep bundled tools such as ripgrep available when login shell startup resets PATH.",
        "",
    ),
    "network_proxy": (
        "Network proxy",
        "Apply network proxy restrictions to sandboxed sessions that already have network access.",
        "NEW: Network proxy can now be enabled from /experimental. Restart Codex after enabling it.",
    ),
    "respect_system_proxy": (
        "System proxy",
        "Use macOS or Windows system proxy settings for Codex requests.",
        "",
    ),
    "prevent_idle_sleep": (
        "Prevent sleep while running",
        "Keep your computer awake while Codex is running a thread.",
        "NEW: Prevent sleep while running is now available in /experimental.",
    ),
}

# name, stage, default: in Codex's order (the list's order and its cursor offsets).
_TABLE = """
analytics_plan_history beta off
cli_resume_account_check underDevelopment off
daemon_auto_start stable on
tui_workspace underDevelopment off
tui_multi_backend underDevelopment off
tui_extensions_statusline underDevelopment off
app_server_websocket_compression underDevelopment off
transcript_v2 removed off
undo removed off
shell_tool stable on
view_image stable on
multi_env_copy_file underDevelopment off
sleep_tool stable on
secret_auth_storage stable off
unified_exec stable on
unified_exec_tty stable on
shell_zsh_fork removed off
unified_exec_zsh_fork removed off
shell_snapshot stable on
login_shell_package_path beta off
powershell_shell_version underDevelopment off
shell_snapshot_v2 underDevelopment off
deferred_executor underDevelopment off
cwd_relative_turn_diffs underDevelopment off
js_repl removed off
content_item_kinds stable on
untrusted_as_tool_output stable on
executed_tool_call_metadata underDevelopment off
stable_environment_tools removed off
code_mode underDevelopment off
code_mode_tool_search underDevelopment off
code_mode_buffered_exec removed off
code_mode_host stable on
code_mode_host_grpc stable on
code_mode_host_output_truncation stable on
code_mode_prewarm underDevelopment off
code_mode_interrupt stable on
code_mode_tool_description_first removed off
instant_interrupt underDevelopment on
interrupt_on_cancel underDevelopment off
code_mode_only underDevelopment off
code_mode_only_strict_3p_tools underDevelopment off
js_repl_tools_only removed off
terminal_resize_reflow removed on
web_search_request deprecated off
web_search_cached deprecated off
standalone_web_search underDevelopment off
hosted_search_policy underDevelopment off
search_tool removed off
codex_git_commit removed off
runtime_metrics underDevelopment off
critical_path_timing underDevelopment off
sqlite removed on
memories stable off
external_agent_memory_import underDevelopment off
local_thread_store_compression underDevelopment off
local_thread_store_shared_compression removed off
background_paginated_rollout_migration underDevelopment off
chronicle underDevelopment off
apply_patch_freeform removed off
apply_patch_streaming_events underDevelopment off
apply_patch_preserve_line_endings removed off
exec_permission_approvals underDevelopment off
write_stdin_approval stable on
hooks stable on
request_permissions_tool underDevelopment off
use_linux_sandbox_bwrap removed off
use_legacy_landlock deprecated off
request_rule removed off
experimental_windows_sandbox removed off
elevated_windows_sandbox removed off
windows_sandbox_service underDevelopment off
prefer_mxc underDevelopment off
remote_models removed off
api_key_model_discovery stable on
cli_daybreak stable on
api_key_cyber_access_programs stable on
daybreak_program_propagation underDevelopment off
enable_request_compression stable on
unbounded_connection_retries stable on
network_proxy beta off
credential_masking underDevelopment off
worktrees removed on
respect_system_proxy beta off
system_proxy_fallback stable on
multi_agent deprecated on
multi_agent_v2 stable off
model_catalog_in_context underDevelopment off
multi_agent_v2_dynamic_tools underDevelopment off
subagent_thread_environments underDevelopment off
subagent_default_context_limits underDevelopment off
defer_mailbox_preemption underDevelopment off
wake_on_agent_messages underDevelopment off
agent_message_board underDevelopment off
agent_message_board_mcp underDevelopment off
multi_agent_mode removed off
enable_fanout removed off
apps stable on
psp underDevelopment off
enable_mcp_apps underDevelopment off
mcp_2026_07_28 underDevelopment off
mcp_tool_list_changed underDevelopment off
mcp_connection_sharing underDevelopment off
mcp_lazy_stdio_startup underDevelopment off
apps_early_resource_discovery underDevelopment off
codex_apps_mcp_2026_07_28 underDevelopment off
mcp_oauth_refresh_coordination stable on
use_xaa underDevelopment off
apps_mcp_path_override removed off
tool_search removed off
tool_search_always_defer_mcp_tools removed on
deferred_tool_world_state stable on
command_sessions_world_state underDevelopment off
incremental_tools stable on
incremental_tools_legacy stable off
incremental_tools_legacy_gcp stable on
suppress_model_change_announcements stable off
prediction_preserve_parent_tools stable on
incremental_exec_tools underDevelopment off
non_prefixed_mcp_tool_names underDevelopment off
unavailable_dummy_tools removed off
tool_suggest stable on
recommended_plugins stable off
plugins stable on
simplified_selection_hints underDevelopment off
executor_capability_discovery underDevelopment off
executor_capability_discovery_v2 underDevelopment off
skip_host_skill_discovery underDevelopment off
plugin_hooks removed off
in_app_browser stable on
browser_annotation_api stable on
in_app_chat stable on
in_app_dictation stable on
in_app_voice stable on
in_app_local_automation stable on
in_app_updates stable on
browser_use stable on
browser_use_full_cdp_access stable on
browser_use_external stable on
computer_use stable on
remote_plugin stable on
plugin_discovery_prefetch removed off
plugin_sharing stable on
external_migration removed off
image_generation stable on
image_generation_animation underDevelopment off
omit_app_server_notification_media underDevelopment off
image_resize_notice underDevelopment off
unified_image_budget stable on
resize_all_images removed on
item_ids removed on
concurrent_reasoning_summaries underDevelopment off
output_token_replay underDevelopment off
skill_mcp_dependency_install stable on
omit_skill_descriptions underDevelopment off
skill_search stable on
skill_catalog_deltas underDevelopment off
skill_env_var_dependency_prompt removed off
mentions_v2 stable on
steer removed on
default_mode_request_user_input underDevelopment off
send_async_message removed off
send_message_to_user_async underDevelopment off
terminal_visualization_instructions underDevelopment off
guardian_approval stable on
guardian_include_additional_context stable on
guardian_recorded_items underDevelopment off
guardianv2.thread_context removed off
guardian_reuse_parent_compaction stable on
guardian_root_handoff_context underDevelopment off
guardian_native_multi_agent_history underDevelopment off
guardian_enhanced_node_repl_transcripts underDevelopment off
guardian_node_repl_transcript_images underDevelopment off
guardian_trust_orchestrator_connectors underDevelopment off
guardian_conversation_history_tools underDevelopment off
guardian_denial_reconsideration underDevelopment off
guardianv2 underDevelopment off
guardianv2_decisions_comparison underDevelopment off
guardianv3 underDevelopment off
guardian_ext removed off
goals stable on
token_budget underDevelopment off
context_management underDevelopment off
rollout_budget underDevelopment off
reasoning_effort_override stable on
current_time_reminder underDevelopment off
nonfatal_clock_read_errors underDevelopment off
collaboration_modes removed on
tool_call_mcp_elicitation stable on
auth_elicitation stable on
bedrock_setup_wizard stable on
gcp_setup_wizard stable off
gateway_setup_wizard stable off
personality removed off
artifact underDevelopment off
fast_mode stable on
ultrafast_mode stable on
step_model_switching underDevelopment off
realtime_conversation removed on
remote_control removed off
image_detail_original removed off
tui_app_server removed on
prevent_idle_sleep beta off
workspace_owner_usage_nudge removed off
responses_websockets removed off
responses_websockets_v2 removed off
remote_compaction_v2 removed off
async_compaction underDevelopment off
async_compaction_root_only underDevelopment off
compaction_image_budget stable on
retain_client_developer_messages underDevelopment off
retain_client_tool_outputs stable on
use_agent_identity underDevelopment off
runtime_agent_instances underDevelopment off
workspace_dependencies stable on
"""


def _catalogue() -> tuple[Feature, ...]:
    features = []
    rows = [row.split() for row in _TABLE.strip().splitlines()]
    for name, stage, default in rows:
        copy = _BETA_COPY.get(name, (None, None, None))
        features.append(Feature(name, cast(Stage, stage), default == "on", *copy))
    return tuple(features)


CATALOGUE: tuple[Feature, ...] = _catalogue()


def enabled(feature: Feature, configured: object, runtime: Mapping[str, bool]) -> bool:
    """Whether `feature` is on: the config's `features` table, else runtime enablement, else default."""
    if isinstance(configured, Mapping):
        value = configured.get(feature.name)
        if isinstance(value, bool):
            return value
    return runtime.get(feature.name, feature.default_enabled)
