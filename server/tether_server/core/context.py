"""What the model sees before the conversation: instructions, permissions, AGENTS.md, environment."""

from __future__ import annotations

import functools
import os
import time
from importlib import resources
from pathlib import Path
from typing import Any

from tether_server.core.settings import TurnSettings, sandbox_mode_of
from tether_server.core.skills_context import skills_section

AGENTS_FILE = "AGENTS.md"
AGENTS_OVERRIDE_FILE = "AGENTS.override.md"
DEFAULT_WINDOW = 272_000


@functools.cache
def _default_instructions() -> str:
    return resources.files("tether_server.core").joinpath("prompts/base.md").read_text(encoding="utf-8")


def base_instructions(settings: TurnSettings) -> str:
    return settings.base_instructions or _default_instructions()


def _sandbox_sentence(policy: dict[str, Any]) -> str:
    mode = sandbox_mode_of(policy)
    network = "enabled" if policy.get("networkAccess") is True else "restricted"
    if mode == "danger-full-access":
        return (
            "The sandbox is off (`sandbox_mode` is `danger-full-access`): "
            "commands run with the user's full access."
        )
    if mode == "workspace-write":
        return (
            "`sandbox_mode` is `workspace-write`: commands may read any file and write inside the "
            "working directory and the writable roots; writing elsewhere needs approval. "
            f"Network access is {network}."
        )
    return (
        "`sandbox_mode` is `read-only`: commands may read files but not change them; any write needs "
        f"approval. Network access is {network}."
    )


def _approval_text(policy: Any) -> str:
    if policy == "never":
        return (
            "Approval policy is `never`: nobody will approve anything. Do not set `sandbox_permissions`; "
            "commands that need more access will be refused, so find another way or report the limitation."
        )
    if policy == "untrusted":
        return (
            "Approval policy is `untrusted`: commands outside a small set of known-safe read-only ones are "
            "shown to the user for approval before they run."
        )
    return (
        "Approval policy is `on-request`: commands run inside the sandbox. When a command truly needs to "
        'run outside it (network, writes elsewhere), call it with `sandbox_permissions: "require_escalated"` '
        "and a one-sentence `justification`; the user decides. Do not ask for escalation to work around "
        "a failure you have not understood."
    )


def permissions_text(settings: TurnSettings) -> str:
    lines = [
        "<permissions instructions>",
        _sandbox_sentence(settings.sandbox_policy),
        _approval_text(settings.approval_policy),
    ]
    roots = settings.sandbox_policy.get("writableRoots") or []
    if roots:
        lines.append("The writable roots are " + ", ".join(f"`{r}`" for r in roots) + ".")
    lines.append("</permissions instructions>")
    return "\n".join(lines)


def _read_capped(path: Path, budget: int) -> str:
    try:
        data = path.read_bytes()[:budget]
    except OSError:
        return ""
    return data.decode("utf-8", errors="ignore").strip()


def _project_root(cwd: Path) -> Path:
    for candidate in (cwd, *cwd.parents):
        if (candidate / ".git").exists():
            return candidate
    return cwd


def agents_md(cwd: Path, home: Path | None, max_bytes: int = 32 * 1024) -> str:
    """Global `$TETHER_HOME/AGENTS.md`, then every AGENTS.md from the project root down to cwd.

    An `AGENTS.override.md` in a directory takes the place of that directory's AGENTS.md. The
    total is capped at `max_bytes`, earliest files first.
    """
    paths: list[Path] = []
    if home is not None:
        for name in (AGENTS_OVERRIDE_FILE, AGENTS_FILE):
            if (home / name).is_file():
                paths.append(home / name)
                break
    root = _project_root(cwd)
    chain = [cwd, *cwd.parents]
    chain = list(reversed(chain[: chain.index(root) + 1])) if root in chain else [cwd]
    for directory in chain:
        for name in (AGENTS_OVERRIDE_FILE, AGENTS_FILE):
            if (directory / name).is_file():
                paths.append(directory / name)
                break
    parts: list[str] = []
    budget = max_bytes
    for path in paths:
        if budget <= 0:
            break
        text = _read_capped(path, budget)
        if text:
            parts.append(text)
            budget -= len(text.encode("utf-8"))
    return "\n\n".join(parts)


def environment_context(cwd: str, shell: str | None = None) -> str:
    shell_name = Path(shell or os.environ.get("SHELL") or "/bin/bash").name
    tz = time.strftime("%Z")
    return "\n".join(
        [
            "<environment_context>",
            f"  <cwd>{cwd}</cwd>",
            f"  <shell>{shell_name}</shell>",
            f"  <current_date>{time.strftime('%Y-%m-%d')}</current_date>",
            f"  <timezone>{os.environ.get('TZ') or tz}</timezone>",
            "</environment_context>",
        ]
    )


def text_message(role: str, *texts: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": t} for t in texts]}


def initial_context(
    settings: TurnSettings, home: Path | None, agents_max_bytes: int, context_window: int | None = None
) -> list[dict[str, Any]]:
    """The developer + contextual user messages recorded at a thread's first turn."""
    developer = [permissions_text(settings)]
    if settings.developer_instructions:
        developer.append(settings.developer_instructions)
    skills = skills_section(Path(settings.cwd), home, context_window or DEFAULT_WINDOW)
    if skills:
        developer.append(skills)
    user: list[str] = []
    agents = agents_md(Path(settings.cwd), home, agents_max_bytes)
    if agents:
        user.append(
            f"# AGENTS.md instructions for {settings.cwd}\n\n<INSTRUCTIONS>\n{agents}\n</INSTRUCTIONS>"
        )
    user.append(environment_context(settings.cwd))
    return [text_message("developer", *developer), text_message("user", *user)]


def settings_update(previous: TurnSettings, current: TurnSettings) -> list[dict[str, Any]]:
    """Messages telling the model what changed since the last turn (none when nothing did)."""
    out: list[dict[str, Any]] = []
    if (previous.approval_policy, previous.sandbox_policy) != (
        current.approval_policy,
        current.sandbox_policy,
    ):
        out.append(text_message("developer", permissions_text(current)))
    if previous.cwd != current.cwd:
        out.append(text_message("user", environment_context(current.cwd)))
    return out
