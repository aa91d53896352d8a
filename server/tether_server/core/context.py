"""What the model sees before the conversation: instructions, permissions, AGENTS.md, environment."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from tether_server import log, safe_read
from tether_server.config.skills import SkillRoot
from tether_server.core.settings import AdditionalContext, TurnSettings, sandbox_mode_of
from tether_server.core.skills_context import skills_section

AGENTS_FILE = "AGENTS.md"
AGENTS_OVERRIDE_FILE = "AGENTS.override.md"
DEFAULT_WINDOW = 272_000
# Reading the project's files normally takes milliseconds; past this the turn goes on without them.
DOCS_TIMEOUT_S = 10.0

_log = log.get("tether.core.context")


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


def _project_root(cwd: Path) -> Path:
    for candidate in (cwd, *cwd.parents):
        if (candidate / ".git").exists():
            return candidate
    return cwd


def _first_doc(
    directory: Path, budget: int, root: Path, private: Sequence[Path], *, follow_links: bool = False
) -> str:
    """The override or else the AGENTS.md of `directory`, within `budget` bytes ("" for none).

    One that may not be read (a symlink, a FIFO, a place outside `root`) counts as absent.
    """
    for name in (AGENTS_OVERRIDE_FILE, AGENTS_FILE):
        path = directory / name
        try:
            data = safe_read.read_prefix(
                path,
                budget,
                root=root,
                private=private,
                contained=not follow_links,
                follow_links=follow_links,
            )
        except FileNotFoundError:
            continue
        except safe_read.Refused as exc:
            _log.warning("agents_md.refused", path=str(path), reason=str(exc))
            continue
        except OSError as exc:
            _log.warning("agents_md.unreadable", path=str(path), reason=exc.strerror)
            continue
        return data.decode("utf-8", errors="ignore").strip()
    return ""


def agents_md(cwd: Path, home: Path | None, max_bytes: int = 32 * 1024, private: Sequence[Path] = ()) -> str:
    """Global `$TETHER_HOME/AGENTS.md`, then every AGENTS.md from the project root down to cwd.

    An `AGENTS.override.md` in a directory takes the place of that directory's AGENTS.md. The
    total is capped at `max_bytes`, earliest files first, and no more than that is read. Project
    files are read by the `safe_read` rules (`private`: the daemon's private and hidden paths);
    the global one may be a symlink, since only the user writes `$TETHER_HOME`.
    """
    root = _project_root(cwd)
    chain = [cwd, *cwd.parents]
    chain = list(reversed(chain[: chain.index(root) + 1])) if root in chain else [cwd]
    places: list[tuple[Path, Path, bool]] = [(home, home, True)] if home is not None else []
    places += [(directory, root, False) for directory in chain]
    parts: list[str] = []
    budget = max_bytes
    for directory, lookup_root, follow in places:
        if budget <= 0:
            break
        text = _first_doc(directory, budget, lookup_root, private, follow_links=follow)
        if text:
            parts.append(text)
            budget -= len(text.encode("utf-8"))
    return "\n\n".join(parts)


@dataclass(frozen=True)
class ProjectDocs:
    """What a thread's first context takes from files: the skills section and the AGENTS.md text."""

    skills: str = ""
    agents: str = ""


def read_project_docs(
    cwd: Path,
    home: Path | None,
    agents_max_bytes: int,
    context_window: int,
    private: Sequence[Path] = (),
    skill_roots: Sequence[SkillRoot] = (),
) -> ProjectDocs:
    """Blocking: run it off the event loop (`load_project_docs`)."""
    return ProjectDocs(
        skills_section(cwd, home, context_window, private, skill_roots),
        agents_md(cwd, home, agents_max_bytes, private),
    )


async def load_project_docs(
    cwd: Path,
    home: Path | None,
    agents_max_bytes: int,
    context_window: int | None,
    private: Sequence[Path] = (),
    skill_roots: Sequence[SkillRoot] = (),
) -> ProjectDocs:
    """`read_project_docs` on the safe-read pool; none at all when the files take too long."""
    window = context_window or DEFAULT_WINDOW
    args = (cwd, home, agents_max_bytes, window, tuple(private), tuple(skill_roots))
    try:
        return await safe_read.off_loop(read_project_docs, *args, deadline_s=DOCS_TIMEOUT_S)
    except TimeoutError:
        _log.warning("project_docs.timeout", cwd=str(cwd), timeout_s=DOCS_TIMEOUT_S)
        return ProjectDocs()


def environment_context(cwd: str, shell: str | None = None, *, bare: bool = False) -> str:
    """`bare`: a turn with no environment, which Codex tells only the date and the time zone."""
    shell_name = Path(shell or os.environ.get("SHELL") or "/bin/bash").name
    tz = time.strftime("%Z")
    place = [] if bare else [f"  <cwd>{cwd}</cwd>", f"  <shell>{shell_name}</shell>"]
    return "\n".join(
        [
            "<environment_context>",
            *place,
            f"  <current_date>{time.strftime('%Y-%m-%d')}</current_date>",
            f"  <timezone>{os.environ.get('TZ') or tz}</timezone>",
            "</environment_context>",
        ]
    )


def text_message(role: str, *texts: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": t} for t in texts]}


def initial_context(
    settings: TurnSettings,
    home: Path | None,
    agents_max_bytes: int,
    context_window: int | None = None,
    private: Sequence[Path] = (),
) -> list[dict[str, Any]]:
    """The developer + contextual user messages recorded at a thread's first turn (blocking: the
    daemon reads the files with `load_project_docs` and builds with `context_messages`)."""
    docs = read_project_docs(
        Path(settings.cwd), home, agents_max_bytes, context_window or DEFAULT_WINDOW, private
    )
    return context_messages(settings, docs)


def context_messages(settings: TurnSettings, docs: ProjectDocs) -> list[dict[str, Any]]:
    """The developer + contextual user messages for `settings` with the project's `docs`."""
    developer = [permissions_text(settings)]
    if settings.developer_instructions:
        developer.append(settings.developer_instructions)
    if docs.skills:
        developer.append(docs.skills)
    user: list[str] = []
    agents = docs.agents
    if agents and not settings.no_environment:
        user.append(
            f"# AGENTS.md instructions for {settings.cwd}\n\n<INSTRUCTIONS>\n{agents}\n</INSTRUCTIONS>"
        )
    user.append(environment_context(settings.cwd, bare=settings.no_environment))
    return [text_message("developer", *developer), text_message("user", *user)]


def settings_update(previous: TurnSettings, current: TurnSettings) -> list[dict[str, Any]]:
    """Messages telling the model what changed since the last turn (none when nothing did)."""
    out: list[dict[str, Any]] = []
    if (previous.approval_policy, previous.sandbox_policy) != (
        current.approval_policy,
        current.sandbox_policy,
    ):
        out.append(text_message("developer", permissions_text(current)))
    if (previous.cwd, previous.no_environment) != (current.cwd, current.no_environment):
        out.append(text_message("user", environment_context(current.cwd, bare=current.no_environment)))
    return out


def additional_context(entries: Sequence[AdditionalContext]) -> list[dict[str, Any]]:
    """`turn/start`'s `additionalContext` as Codex 0.169.0 puts it before the user's input: untrusted
    fragments first, each as a tool output of the `agent` namespace named after its source (so the
    model treats it as data, not as instructions), then the client's own as developer messages
    tagged with their key."""
    untrusted = [
        {"type": "function_call_output", "name": e.name or e.key, "namespace": "agent", "output": e.value}
        for e in entries
        if e.kind == "untrusted"
    ]
    application = [
        text_message("developer", f"<{e.key}>{e.value}</{e.key}>") for e in entries if e.kind != "untrusted"
    ]
    return untrusted + application
