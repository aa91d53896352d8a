"""The configuration reference (docs/configuration.md), generated from the config model.

Every key of `Config` and of the tables under it is listed with its type and default, read from
the model, and with a description and its Codex compatibility from `NOTES` below. A key without
a note fails the docs test, so a new key cannot go undocumented.
`python -m tether_server.config.reference > docs/configuration.md` regenerates the page.
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from tether_server.config.builtins import PASSTHROUGH_KEYS
from tether_server.config.codex_keys import codex_features, codex_keys
from tether_server.config.model import Config
from tether_server.config.provider import ModelProviderInfo
from tether_server.config.reference_local import LOCAL_MODELS

SAME = "same as Codex"
TETHER = "Tether only"
IGNORED = "Codex key, accepted and ignored"

# key → (Codex compatibility, what it does). Nested keys are dotted; `<id>` stands for any name.
NOTES: dict[str, tuple[str, str]] = {
    "model": (SAME, "The model every new thread uses unless a client picks another."),
    "model_provider": (
        SAME,
        "Which `model_providers` entry to talk to (`oss`: the one `oss_provider` names).",
    ),
    "oss_provider": (SAME, "The local server `--oss` uses: `ollama` or `lmstudio` (see Local models)."),
    "model_providers": (SAME, "Model providers by id; built in: `openai`, `ollama`, `lmstudio`."),
    "openai_base_url": (SAME, "Base URL for the built-in `openai` provider (a proxy or gateway)."),
    "model_reasoning_effort": (SAME, "Reasoning effort sent to the model (`low`, `medium`, `high`, …)."),
    "model_reasoning_summary": (SAME, "Reasoning summaries to ask for."),
    "model_verbosity": (SAME, "Text verbosity to ask for."),
    "model_context_window": (SAME, "The model's context window in tokens (for usage and compaction)."),
    "model_auto_compact_token_limit": (SAME, "Compact the history once a turn's input passes this."),
    "tool_output_token_limit": (SAME, "Tool output kept for the model, in tokens."),
    "service_tier": (SAME, "Service tier sent with each request."),
    "personality": (SAME, "Personality instructions to add."),
    "approval_policy": (
        SAME,
        "When to ask before running a command or applying a patch; or a `{ granular = { … } }` table.",
    ),
    "approvals_reviewer": (SAME, "Who answers approval requests."),
    "sandbox_mode": (SAME, "The sandbox for commands: read-only, workspace-write, or none."),
    "sandbox_workspace_write": (SAME, "What workspace-write mode may touch."),
    "sandbox_workspace_write.writable_roots": (SAME, "More writable directories besides the cwd."),
    "sandbox_workspace_write.network_access": (SAME, "Let sandboxed commands use the network."),
    "sandbox_workspace_write.exclude_tmpdir_env_var": (SAME, "Do not make `$TMPDIR` writable."),
    "sandbox_workspace_write.exclude_slash_tmp": (SAME, "Do not make `/tmp` writable."),
    "shell_environment_policy": (SAME, "How a command's environment is built from the daemon's."),
    "shell_environment_policy.inherit": (SAME, "Start from all variables, a core set, or none."),
    "shell_environment_policy.ignore_default_excludes": (
        "Codex key, different default (Codex: true)",
        "Keep variables named like `*KEY*`, `*SECRET*`, `*TOKEN*` (dropped by default).",
    ),
    "shell_environment_policy.exclude": (SAME, "Glob patterns of variables to drop."),
    "shell_environment_policy.include_only": (SAME, "If set, keep only variables matching these globs."),
    "shell_environment_policy.set": (SAME, "Variables to set in every command."),
    "shell_environment_policy.experimental_use_profile": (IGNORED, "Accepted for Codex configs."),
    "allow_login_shell": (SAME, "Run commands through a login shell (reads the user's profile)."),
    "background_terminal_max_timeout": (SAME, "Longest wait for a background command's output, in ms."),
    "instructions": (SAME, "Replaces the base instructions."),
    "developer_instructions": (SAME, "Extra developer instructions for every turn."),
    "model_instructions_file": (SAME, "A file whose text replaces the base instructions."),
    "compact_prompt": (SAME, "The prompt used to summarize history when compacting."),
    "project_doc_max_bytes": (SAME, "How much of AGENTS.md files to read."),
    "skills": (
        SAME,
        "`[[skills.config]]` entries (`path` or `name`, `enabled`): skills on or off (`skills/config/write`)",
    ),
    "project_doc_fallback_filenames": (SAME, "Other names to read when there is no AGENTS.md."),
    "project_root_markers": (SAME, "Files that mark a project root (where AGENTS.md lookup stops)."),
    "thread_unload_delay_secs": (
        TETHER,
        "Seconds a thread with no subscribers and no activity stays loaded before unloading.",
    ),
    "cli_auth_credentials_store": (SAME, "Where `tether login` keeps the API key (unset: `file`)."),
    "store": (
        TETHER,
        "Where threads are stored: `sqlite:///PATH` (unset: `$TETHER_HOME/tether.sqlite`) or "
        "`postgresql://USER@HOST:PORT/DB`; `--store` and `$TETHER_STORE` take precedence.",
    ),
    "profile": (SAME, "The profile to apply (also `--profile`)."),
    "profiles": (SAME, "Named sets of keys, applied over the top level by `profile`."),
    "tether": (TETHER, "Settings only Tether reads."),
    "tether.sandbox_readable_credentials": (
        TETHER,
        "Credential directories in your home (`.aws`, `.ssh`, …) sandboxed commands may still read.",
    ),
    "tether.metrics": (TETHER, "Serve Prometheus metrics at `/metrics` on ws listeners (`--metrics`)."),
    "tether.dynamic_tool_timeout_sec": (
        TETHER,
        "How long a dynamic tool call (`item/tool/call`) waits for a client before it fails.",
    ),
    "tether.chatgpt_issuer": (
        TETHER,
        "The OAuth issuer of the ChatGPT sign-in (unset: `https://auth.openai.com`).",
    ),
    "tether.chatgpt_login_port": (
        TETHER,
        "The loopback port the ChatGPT sign-in's redirect comes back to (unset: 1455; 0: any free port).",
    ),
    "mcp_servers": (
        SAME,
        "MCP servers by name, with Codex's keys (stdio `command`/`args`/`env`/`cwd`, HTTP `url`/"
        "`bearer_token_env_var`/`http_headers`, `enabled`, `enabled_tools`/`disabled_tools`, "
        "`startup_timeout_sec`, `tool_timeout_sec`, `tools.<tool>.approval_mode`); see protocol.md.",
    ),
    "web_search": (
        "Codex key, default `disabled`",
        "The provider's hosted web search: `live`, `cached`/`indexed` (no live fetches) or `disabled`.",
    ),
    "tools": (SAME, "Only `tools.web_search` (true: `live`) is read, when `web_search` is unset."),
    "otel": (SAME, "OpenTelemetry export; off when absent or when no exporter is set."),
    "otel.environment": (SAME, "The `deployment.environment` attribute of everything exported."),
    "otel.exporter": (
        SAME,
        "Where log lines go: `none`, `otlp-http`, `otlp-grpc` or a table.",
    ),
    "otel.trace_exporter": (SAME, "Where spans go (same values as `exporter`)."),
    "otel.metrics_exporter": (IGNORED, "Accepted; Tether's metrics are the Prometheus endpoint."),
    "otel.log_user_prompt": (SAME, "Accepted; Tether never exports prompt text."),
    "model_providers.<id>.name": (SAME, "Display name."),
    "model_providers.<id>.base_url": (
        SAME,
        "The API base URL (`…/v1`); `/responses` is appended (`/chat/completions` for `chat`).",
    ),
    "model_providers.<id>.env_key": (SAME, "The environment variable holding the API key."),
    "model_providers.<id>.env_key_instructions": (SAME, "Shown when that variable is missing."),
    "model_providers.<id>.experimental_bearer_token": (SAME, "An API key written in the config itself."),
    "model_providers.<id>.wire_api": (
        "Codex key; `chat` is Tether's (Codex dropped it)",
        "The API: `responses` (default) or `chat` (Chat Completions: local and proxy servers).",
    ),
    "model_providers.<id>.query_params": (SAME, "Query parameters added to every request."),
    "model_providers.<id>.http_headers": (SAME, "Headers added to every request."),
    "model_providers.<id>.env_http_headers": (SAME, "Headers whose values come from environment variables."),
    "model_providers.<id>.request_max_retries": (SAME, "Retries of a failed request."),
    "model_providers.<id>.stream_max_retries": (SAME, "Retries of a dropped response stream."),
    "model_providers.<id>.stream_idle_timeout_ms": (SAME, "A stream silent this long is dropped."),
    "model_providers.<id>.websocket_connect_timeout_ms": (IGNORED, "Accepted; Tether streams over HTTP."),
    "model_providers.<id>.requires_openai_auth": (
        SAME,
        "Authenticates as OpenAI (`tether login`'s key).",
    ),
    "model_providers.<id>.supports_websockets": (IGNORED, "Accepted; Tether streams over HTTP."),
    "model_providers.<id>.auth": (IGNORED, "Codex's command-based auth; accepted, not run."),
    "model_providers.<id>.aws": (IGNORED, "Codex's AWS settings; accepted, not used."),
}

HEADER = """# Configuration reference

<!-- Generated from server/tether_server/config/model.py by
     `python -m tether_server.config.reference > docs/configuration.md`; a test keeps it current. -->

Tether reads `$TETHER_HOME/config.toml` (default `~/.tether/config.toml`) with Codex's key names: a
Codex `config.toml` can be copied over. `-c key=value` on the command line overrides any key (the
value is parsed as TOML: `-c model='"gpt-5.5"'`, `-c sandbox_workspace_write.network_access=true`);
`--profile NAME` applies `[profiles.NAME]`. Unknown keys are ignored with a warning
(`--strict-config` makes them errors); a bad value stops the daemon with a message naming the key.
`tether doctor` checks the file without starting anything.

```toml
model = "gpt-5.5"
sandbox_mode = "workspace-write"
approval_policy = "on-request"

[sandbox_workspace_write]
network_access = false

[model_providers.local]
name = "vLLM"
base_url = "http://127.0.0.1:8000/v1"
```

Codex compatibility: *same as Codex* means the key means what it means in Codex; *accepted and
ignored* means a Codex config with it loads, but Tether does nothing with it.
"""


def _type(annotation: Any) -> str:
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Annotated:
        return _type(args[0])
    if origin is Literal:
        return " \\| ".join(json.dumps(a) for a in args)
    if origin in (Union, types.UnionType):
        parts = [_type(a) for a in args if a is not type(None)]
        return " \\| ".join(parts) + (" (optional)" if type(None) in args else "")
    if origin is tuple:
        return f"list of {_type(args[0])}"
    if origin is dict:
        return f"table of {_type(args[1])}"
    if annotation is Any:
        return "any"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "table"
    return {str: "string", int: "integer", bool: "boolean", float: "number"}.get(annotation, str(annotation))


def _default(model: type[BaseModel], name: str) -> str:
    field = model.model_fields[name]
    if field.default_factory is not None:
        value: Any = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if isinstance(value, BaseModel):
        return "(table)"
    if value is None:
        return "unset"
    if isinstance(value, dict) and value and all(isinstance(v, BaseModel) for v in value.values()):
        return ", ".join(f"`{k}`" for k in value)
    return f"`{json.dumps(value, default=str)}`"


def _tables(annotation: Any) -> list[type[BaseModel]]:
    """The config tables an annotation holds (directly, optionally, or as the values of a dict)."""
    found: list[type[BaseModel]] = []
    origin = get_origin(annotation)
    if origin is Annotated or origin in (Union, types.UnionType):
        for arg in get_args(annotation):
            found += _tables(arg)
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found.append(annotation)
    return found


def rows(model: type[BaseModel] = Config, prefix: str = "") -> Iterator[tuple[str, str, str]]:
    """(dotted key, type, default) for every key of `model` and of the tables under it."""
    for name, field in model.model_fields.items():
        key = prefix + name
        yield key, _type(field.annotation), _default(model, name)
        if key == "model_providers":
            yield from rows(ModelProviderInfo, "model_providers.<id>.")
            continue
        if key == "approval_policy":
            continue  # the granular table is documented with the key itself
        for table in _tables(field.annotation):
            yield from rows(table, key + ".")


def documented_keys() -> list[str]:
    return [key for key, _, _ in rows()]


IGNORED_HEADER = """
## Other Codex keys: accepted and ignored

Every key of Codex 0.169.0's config.toml is known to Tether, so a Codex config (or the `-c` flags
of the TypeScript SDK) loads without an "unknown config key" warning. The list
(`server/tether_server/config/codex_keys.json`) was generated from the real binary by
`python -m conformance.config_keys`. Tether does nothing with these keys (nor with anything under
them): it accepts them and ignores them. A key Codex does not know either is ignored with a
warning (on stderr and as a `configWarning` notification; `tether exec --json` shows it as an
`error` item, as `codex exec --json` does).
"""


def ignored_codex_keys() -> list[str]:
    """Codex's keys that the table above does not list (their tables excepted)."""
    documented = set(documented_keys())
    return sorted(
        key
        for key in codex_keys()
        if key not in documented and not any(key.startswith(d + ".") for d in PASSTHROUGH_KEYS)
    )


def render_markdown() -> str:
    lines = [HEADER, "| key | type | default | Codex | what it does |", "|---|---|---|---|---|"]
    for key, kind, default in rows():
        compat, text = NOTES.get(key) or (
            (IGNORED, "Kept so Codex configs load.") if key in PASSTHROUGH_KEYS else ("?", "?")
        )
        lines.append(f"| `{key}` | {kind} | {default} | {compat} | {text} |")
    lines.append(LOCAL_MODELS.rstrip("\n"))
    lines.append(IGNORED_HEADER)
    lines.append(", ".join(f"`{key}`" for key in ignored_codex_keys()) + ".")
    lines.append("")
    lines.append(
        f"Feature flags under `[features]` ({len(codex_features())} in Codex 0.169.0), and any other "
        "name there, are accepted and ignored."
    )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render_markdown())
