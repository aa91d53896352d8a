"""Should a command or a patch run, ask, or be refused? (core.md sections 5.2 to 5.5, simplified)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["allow", "prompt", "reject"]

_SAFE_PROGRAMS = frozenset(
    {
        "cat",
        "cd",
        "cut",
        "echo",
        "expr",
        "false",
        "grep",
        "head",
        "id",
        "ls",
        "nl",
        "paste",
        "pwd",
        "rev",
        "seq",
        "stat",
        "tail",
        "tr",
        "true",
        "uname",
        "uniq",
        "wc",
        "which",
        "whoami",
        "numfmt",
        "tac",
    }
)
_FIND_UNSAFE = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"}
)
_RG_UNSAFE = frozenset({"--pre", "--hostname-bin", "--search-zip", "-z"})
_GIT_READ = frozenset({"status", "log", "diff", "show", "branch"})
_SEPARATORS = frozenset({"&&", "||", ";", "|"})


@dataclass(frozen=True)
class CommandDecision:
    verdict: Verdict
    sandboxed: bool
    reason: str | None = None


def _segments(script: str) -> list[list[str]] | None:
    """Split a plain script into commands; None when it uses anything beyond && || ; |."""
    if any(ch in script for ch in "`$()<>\n"):
        return None
    try:
        lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return None
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token in _SEPARATORS:
            segments.append([])
        elif set(token) <= set("&|;"):
            return None
        else:
            segments[-1].append(token)
    return [s for s in segments if s] or None


def _safe_segment(argv: list[str]) -> bool:
    program, args = argv[0].rsplit("/", 1)[-1], argv[1:]
    if program in _SAFE_PROGRAMS:
        return True
    if program == "find":
        return not any(a in _FIND_UNSAFE for a in args)
    if program == "rg":
        return not any(a.split("=")[0] in _RG_UNSAFE for a in args)
    if program == "git":
        return bool(args) and args[0] in _GIT_READ and not any(a.startswith("--output") for a in args)
    if program == "sed":
        return (
            len(argv) <= 4
            and len(args) >= 2
            and args[0] == "-n"
            and args[1].rstrip("p").replace(",", "").isdigit()
        )
    if program == "base64":
        return not any(a in ("-o", "--output") or a.startswith("--output=") for a in args)
    return False


def is_known_safe(script: str) -> bool:
    segments = _segments(script)
    return segments is not None and all(_safe_segment(s) for s in segments)


def policy_name(policy: Any) -> str:
    if isinstance(policy, dict) and "granular" in policy:
        return "granular"
    return str(policy)


def _debug_name(policy: Any) -> str:
    return {
        "never": "Never",
        "untrusted": "UnlessTrusted",
        "on-request": "OnRequest",
        "granular": "Granular",
    }.get(policy_name(policy), "OnRequest")


def assess_command(
    approval_policy: Any, sandbox_policy: dict[str, Any], script: str, escalate: bool
) -> CommandDecision:
    """The decision for one exec_command call before it runs."""
    name = policy_name(approval_policy)
    full_access = sandbox_policy.get("type") in ("dangerFullAccess", "externalSandbox")
    if escalate and name not in ("on-request", "granular"):
        pol = _debug_name(approval_policy)
        return CommandDecision(
            "reject",
            False,
            f"approval policy is {pol}; reject command — you cannot ask for escalated permissions if the "
            f"approval policy is {pol}",
        )
    if full_access:
        if name == "untrusted" and not is_known_safe(script):
            return CommandDecision("prompt", False)
        return CommandDecision("allow", False)
    if escalate:
        if name == "granular" and not approval_policy["granular"].get("sandbox_approval", True):
            return CommandDecision(
                "reject",
                True,
                "approval required by policy, but AskForApproval::Granular.sandbox_approval is false",
            )
        return CommandDecision("prompt", False)
    if name == "untrusted" and not is_known_safe(script):
        return CommandDecision("prompt", True)
    return CommandDecision("allow", True)


def patch_verdict(
    approval_policy: Any, sandbox_policy: dict[str, Any], inside_roots: bool
) -> tuple[Verdict, str]:
    """apply_patch: allow when every path is writable under the sandbox, else ask or refuse."""
    name = policy_name(approval_policy)
    if name == "untrusted":
        return "prompt", ""
    if inside_roots:
        return "allow", ""
    if name == "never" or (
        name == "granular" and not approval_policy["granular"].get("sandbox_approval", True)
    ):
        if sandbox_policy.get("type") == "readOnly":
            return "reject", "writing is blocked by read-only sandbox; rejected by user approval settings"
        return "reject", "writing outside of the project; rejected by user approval settings"
    return "prompt", ""
