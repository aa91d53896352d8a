"""A user's real Codex config.toml, copied over, loads without errors or warnings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether_server.config import PASSTHROUGH_KEYS, Config, GranularApprovalPolicy, load_config

CODEX_CONFIG = """
model = "gpt-5.5"
model_provider = "openai"
model_reasoning_effort = "high"
model_reasoning_summary = "detailed"
model_verbosity = "medium"
model_context_window = 272000
model_auto_compact_token_limit = 200000
tool_output_token_limit = 12000
approval_policy = "on-request"
approvals_reviewer = "user"
sandbox_mode = "workspace-write"
service_tier = "flex"
personality = "pragmatic"
developer_instructions = "Prefer small diffs."
model_instructions_file = "~/.codex/instructions.md"
project_doc_max_bytes = 65536
project_doc_fallback_filenames = ["CLAUDE.md"]
project_root_markers = [".git", ".hg"]
allow_login_shell = true
file_opener = "vscode"
hide_agent_reasoning = false
show_raw_agent_reasoning = false
model_supports_reasoning_summaries = true
preferred_auth_method = "apikey"
forced_login_method = "api"
check_for_update_on_startup = false
web_search = "cached"
notify = ["notify-send", "Codex"]
profile = "work"

[sandbox_workspace_write]
writable_roots = ["/home/me/.cache/pip"]
network_access = false
exclude_tmpdir_env_var = false
exclude_slash_tmp = false

[shell_environment_policy]
inherit = "core"
ignore_default_excludes = false
exclude = ["AWS_*", "AZURE_*"]
include_only = ["PATH", "HOME", "LANG"]
experimental_use_profile = false

[shell_environment_policy.set]
CI = "1"

[tui]
notifications = true
animations = false

[history]
persistence = "save-all"
max_bytes = 10485760

[features]
unified_exec = true
shell_snapshot = true
web_search_request = true

[tools]
web_search = true
view_image = true

[mcp_servers.docs]
command = "npx"
args = ["-y", "@acme/docs-mcp"]
env = { "DOCS_TOKEN_FILE" = "/run/secrets/docs" }
startup_timeout_sec = 20
tool_timeout_sec = 60

[mcp_servers.search]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "SEARCH_TOKEN"

[projects."/home/me/src/app"]
trust_level = "trusted"

[otel]
environment = "dev"
exporter = "none"

[model_providers.azure]
name = "Azure"
base_url = "https://acme.openai.azure.com/openai"
env_key = "AZURE_OPENAI_API_KEY"
query_params = { api-version = "2025-04-01-preview" }
wire_api = "responses"
request_max_retries = 4
stream_max_retries = 10
stream_idle_timeout_ms = 300000

[model_providers.local]
name = "llama.cpp"
base_url = "http://127.0.0.1:8080/v1"

[profiles.work]
model = "gpt-5.5"
model_provider = "azure"
approval_policy = "never"
sandbox_mode = "workspace-write"
model_reasoning_effort = "medium"

[profiles.review]
model = "o3"
approval_policy = { granular = { sandbox_approval = true, rules = true, mcp_elicitations = false } }
"""


def test_a_realistic_codex_config_loads_with_no_warnings(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(CODEX_CONFIG, encoding="utf-8")

    loaded = load_config(tmp_path, strict=True)

    config = loaded.config
    assert loaded.warnings == []
    assert config.model_provider == "azure"
    assert config.provider.query_params == {"api-version": "2025-04-01-preview"}
    assert config.approval_policy == "never"
    assert config.shell_environment_policy.exclude == ("AWS_*", "AZURE_*")
    assert config.shell_environment_policy.set == {"CI": "1"}
    assert config.model_reasoning_effort == "medium"


def test_the_other_profile_of_the_sample_selects_granular_approvals(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(CODEX_CONFIG, encoding="utf-8")

    config = load_config(tmp_path, profile="review").config

    assert config.model == "o3"
    assert isinstance(config.approval_policy, GranularApprovalPolicy)
    assert config.approval_policy.granular.mcp_elicitations is False


def test_every_accepted_and_ignored_codex_key_is_a_config_field() -> None:
    assert set(Config.model_fields) >= PASSTHROUGH_KEYS


def test_only_the_accepted_and_ignored_keys_are_untyped_fields() -> None:
    untyped = {name for name, field in Config.model_fields.items() if field.annotation is Any}

    assert untyped == PASSTHROUGH_KEYS
