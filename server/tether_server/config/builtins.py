"""Values Tether supplies when config.toml says nothing: built-in providers and ignored keys."""

from __future__ import annotations

from typing import Any

DEFAULT_MODEL = "gpt-5.5"
DEFAULT_PROVIDER = "openai"

# Built-in provider tables, in config.toml shape. A user's `[model_providers.<id>]` table is
# merged key by key over these, so `base_url` alone can repoint ollama at another host.
BUILTIN_PROVIDERS: dict[str, dict[str, Any]] = {
    "openai": {
        "name": "OpenAI",
        "base_url": "https://api.openai.com/v1",
        "env_key": "OPENAI_API_KEY",
        "env_key_instructions": "create an API key at https://platform.openai.com/api-keys",
        "requires_openai_auth": True,
        "supports_websockets": False,
    },
    # Local servers: every version of both speaks Chat Completions (`wire_api = "responses"` in a
    # user's table switches a recent one to its Responses endpoint).
    "ollama": {"name": "Ollama", "base_url": "http://localhost:11434/v1", "wire_api": "chat"},
    "lmstudio": {"name": "LM Studio", "base_url": "http://localhost:1234/v1", "wire_api": "chat"},
}

# Keys real Codex configs carry that Tether accepts without acting on them. They are kept so a
# copied ~/.codex/config.toml loads without a wall of "unknown key" warnings; their contents are
# not checked and they are not reported by config/read.
PASSTHROUGH_KEYS: frozenset[str] = frozenset(
    {
        "agents",
        "analytics",
        "apps",
        "chatgpt_base_url",
        "check_for_update_on_startup",
        "default_permissions",
        "disable_paste_burst",
        "experimental_compact_prompt_file",
        "experimental_use_freeform_apply_patch",
        "experimental_use_rmcp_client",
        "features",
        "file_opener",
        "forced_chatgpt_workspace_id",
        "forced_login_method",
        "hide_agent_reasoning",
        "history",
        "hooks",
        "include_apps_instructions",
        "include_environment_context",
        "include_permissions_instructions",
        "log_dir",
        "mcp_oauth_credentials_store",
        "mcp_servers",
        "model_catalog_json",
        "model_reasoning_summary_format",
        "model_supports_reasoning_summaries",
        "notice",
        "notify",
        "permissions",
        "plugins",
        "preferred_auth_method",
        "projects",
        "review_model",
        "show_raw_agent_reasoning",
        "skills",
        "sqlite_home",
        "tools",
        "tui",
        "windows",
        "windows_wsl_setup_acknowledged",
    }
)
