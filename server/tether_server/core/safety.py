"""Should a command or a patch run, ask, or be refused? (core.md sections 5.2 to 5.5, simplified)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tether_server.core.execpolicy import ExecPolicy, PrefixRule, strictest

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


# A prefix rule the model proposes for these would allow running arbitrary code.
_BANNED_PREFIX_PROGRAMS = frozenset(
    {"bash", "sh", "zsh", "dash", "fish", "python", "python3", "node", "perl", "ruby", "env", "sudo", "xargs"}
)


@dataclass(frozen=True)
class CommandDecision:
    """Run (sandboxed or not), ask, or refuse; `amendment` is the argv prefix to offer allowing."""

    verdict: Verdict
    sandboxed: bool
    reason: str | None = None
    amendment: tuple[str, ...] | None = None


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
    approval_policy: Any,
    sandbox_policy: dict[str, Any],
    script: str,
    escalate: bool,
    *,
    rules: ExecPolicy | None = None,
    argv: Sequence[str] | None = None,
    requested_prefix: Any = None,
    usual_shell: bool = True,
) -> CommandDecision:
    """The decision for one exec_command call before it runs (core.md §5.3).

    Args:
        approval_policy: the turn's approval policy (wire form).
        sandbox_policy: the turn's sandbox policy (wire form).
        script: the shell script the model asked to run.
        escalate: the model asked to run outside the sandbox.
        rules: the exec policy rules; each plain command of the script is checked against them
            (a script beyond `&&`, `||`, `;`, `|` is checked as its whole shell argv).
        argv: the shell argv that runs `script`.
        requested_prefix: the model's `prefix_rule` argument, proposed as the amendment when valid.
        usual_shell: `argv` runs the script the way the user's commands run (the default shell and
            login mode). When not, an allow rule for a command of the script allows nothing, as the
            shell is part of the command; only a rule matching the whole argv (shell included) can.
    """
    guard = _escalation_guard(approval_policy, escalate)
    if guard is not None:
        return guard
    segments = _segments(script)
    units = segments if segments is not None else ([list(argv)] if argv else [])
    unmatched = units
    if rules is not None and rules.rules:
        matched = {i: rule for i, unit in enumerate(units) if (rule := rules.decide(unit)) is not None}
        if not usual_shell and segments is not None:
            matched = _under_another_shell(rules, matched, len(units), argv or ())
        ruled = _rule_decision(approval_policy, script, escalate, units, matched)
        if ruled is not None:
            return ruled
        unmatched = [unit for i, unit in enumerate(units) if i not in matched]
    # Commands an allow rule matched do not count towards the heuristics.
    partly_allowed = segments is not None and len(unmatched) < len(units)
    rest = " && ".join(shlex.join(u) for u in unmatched) if partly_allowed else script
    decision = _heuristic(approval_policy, sandbox_policy, rest, escalate)
    if decision.verdict != "prompt":
        return decision
    # Under another shell, only a rule naming that shell would allow the command next time.
    amendment = _amendment(requested_prefix, unmatched if usual_shell or not argv else [list(argv)])
    return CommandDecision(decision.verdict, decision.sandboxed, decision.reason, amendment)


def _under_another_shell(
    rules: ExecPolicy, matched: dict[int, PrefixRule], count: int, argv: Sequence[str]
) -> dict[int, PrefixRule]:
    """Per command: its own prompt or forbidden rule, or the whole argv's rule, the stricter."""
    whole = rules.decide(argv) if argv else None
    result: dict[int, PrefixRule] = {}
    for i in range(count):
        own = matched.get(i)
        rule = strictest(r for r in (own if own and own.decision != "allow" else None, whole) if r)
        if rule is not None:
            result[i] = rule
    return result


def _escalation_guard(approval_policy: Any, escalate: bool) -> CommandDecision | None:
    if escalate and policy_name(approval_policy) not in ("on-request", "granular"):
        pol = _debug_name(approval_policy)
        return CommandDecision(
            "reject",
            False,
            f"approval policy is {pol}; reject command — you cannot ask for escalated permissions if the "
            f"approval policy is {pol}",
        )
    return None


def _rule_decision(
    approval_policy: Any,
    script: str,
    escalate: bool,
    units: list[list[str]],
    matched: dict[int, PrefixRule],
) -> CommandDecision | None:
    """What the matching rules decide; None when unmatched commands leave it to the heuristics."""
    forbidden = [rule for rule in matched.values() if rule.decision == "forbidden"]
    if forbidden:
        because = forbidden[0].justification or "blocked by policy"
        return CommandDecision("reject", False, f"`{script}` rejected: {because}")
    prompting = [rule for rule in matched.values() if rule.decision == "prompt"]
    if prompting:
        name = policy_name(approval_policy)
        if name == "never":
            return CommandDecision(
                "reject", False, "approval required by policy, but AskForApproval is set to Never"
            )
        if name == "granular" and not approval_policy["granular"].get("rules", True):
            return CommandDecision(
                "reject",
                False,
                "approval required by policy rule, but AskForApproval::Granular.rules is false",
            )
        why = prompting[0].justification
        reason = f"`{script}` requires approval: {why}" if why else f"`{script}` requires approval by policy"
        return CommandDecision("prompt", not escalate, reason)
    if units and len(matched) == len(units):
        return CommandDecision("allow", False)  # every command is explicitly allowed: no sandbox
    return None


def _amendment(requested: Any, units: list[list[str]]) -> tuple[str, ...] | None:
    """The model's prefix when it is usable, else the first command that needs approval."""
    if (
        isinstance(requested, list)
        and requested
        and all(isinstance(t, str) and t for t in requested)
        and not _banned_prefix(requested)
        and any(unit[: len(requested)] == requested for unit in units)
    ):
        return tuple(requested)
    for unit in units:
        if not _safe_segment(unit):
            return tuple(unit)
    return tuple(units[0]) if units else None


def _banned_prefix(prefix: list[str]) -> bool:
    program = prefix[0].rsplit("/", 1)[-1]
    return program in _BANNED_PREFIX_PROGRAMS and len(prefix) <= 2


def _heuristic(
    approval_policy: Any, sandbox_policy: dict[str, Any], script: str, escalate: bool
) -> CommandDecision:
    name = policy_name(approval_policy)
    full_access = sandbox_policy.get("type") in ("dangerFullAccess", "externalSandbox")
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


_OUTSIDE_PROJECT = "writing outside of the project; rejected by user approval settings"


def patch_verdict(
    approval_policy: Any,
    sandbox_policy: dict[str, Any],
    inside_roots: bool,
    escalation_reason: str | None = None,
) -> tuple[Verdict, str]:
    """apply_patch: allow when every path is writable under the sandbox, else ask or refuse.

    `escalation_reason` says why a path is not writable (outside the project, a protected
    `.git`/`.codex`/`.agents`, a symlink leading out); the model sees it when the policy refuses.
    """
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
        return "reject", escalation_reason or _OUTSIDE_PROJECT
    return "prompt", ""
