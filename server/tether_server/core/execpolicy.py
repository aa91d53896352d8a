"""Exec policy rules: `prefix_rule(...)` files under `$TETHER_HOME/rules/*.rules` (core.md §5.6).

The files use Starlark call syntax, which is also Python expression syntax, so they are read with
`ast` and every argument is a literal (`ast.literal_eval`): nothing in a rules file is executed.

    prefix_rule(
        pattern=["git", ["push", "fetch"]],   # a token, or a list of alternatives, per position
        decision="prompt",                    # allow (default) | prompt | forbidden
        justification="talks to the network",
        match=[["git", "push", "origin"]],    # examples checked when the file is loaded
        not_match=["git status"],
    )

`host_executable(...)` and `network_rule(...)` calls are accepted and ignored.
"""

from __future__ import annotations

import ast
import json
import os
import shlex
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tether_server import log

Decision = Literal["allow", "prompt", "forbidden"]
DECISIONS: tuple[Decision, ...] = ("allow", "prompt", "forbidden")
_STRICTNESS = {"allow": 0, "prompt": 1, "forbidden": 2}
_IGNORED_CALLS = frozenset({"host_executable", "network_rule"})
_PREFIX_RULE_ARGS = frozenset({"pattern", "decision", "justification", "match", "not_match"})
RULES_DIR = "rules"
DEFAULT_RULES_FILE = "default.rules"

_log = log.get("tether.core.execpolicy")


class RulesError(ValueError):
    """A rules file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class PrefixRule:
    """One `prefix_rule`: argv starting with `pattern` (one set of alternatives per token)."""

    pattern: tuple[frozenset[str], ...]
    decision: Decision = "allow"
    justification: str | None = None

    def matches(self, argv: Sequence[str]) -> bool:
        """Whether `argv` starts with this rule's tokens."""
        return len(argv) >= len(self.pattern) and all(
            token in alternatives for token, alternatives in zip(argv, self.pattern, strict=False)
        )


def strictest(rules: Iterable[PrefixRule]) -> PrefixRule | None:
    """The rule with the strictest decision (forbidden > prompt > allow); the first among equals."""
    best: PrefixRule | None = None
    for rule in rules:
        if best is None or _STRICTNESS[rule.decision] > _STRICTNESS[best.decision]:
            best = rule
    return best


@dataclass(frozen=True)
class ExecPolicy:
    """A set of prefix rules."""

    rules: tuple[PrefixRule, ...] = ()

    def matching(self, argv: Sequence[str]) -> list[PrefixRule]:
        """Every rule whose pattern `argv` starts with."""
        return [rule for rule in self.rules if rule.matches(argv)]

    def decide(self, argv: Sequence[str]) -> PrefixRule | None:
        """The strictest rule matching `argv`, or None when no rule applies."""
        return strictest(self.matching(argv))


# ---- parsing ------------------------------------------------------------------------------------


def parse_rules(text: str, source: str = "<rules>") -> list[PrefixRule]:
    """Parse one rules file.

    Raises:
        RulesError: a syntax error, a statement other than a supported call, a non-literal
            argument, an invalid pattern or decision, or a failing `match`/`not_match` example.
    """
    try:
        module = ast.parse(text, filename=source, mode="exec")
    except SyntaxError as exc:
        raise RulesError(f"{source}:{exc.lineno}: syntax error: {exc.msg}") from None
    rules: list[PrefixRule] = []
    for statement in module.body:
        call = _call_of(statement, source)
        if call is None:
            continue
        name = call.func.id if isinstance(call.func, ast.Name) else ""
        where = f"{source}:{statement.lineno}"
        if name in _IGNORED_CALLS:
            _literal_args(call, where)
            continue
        if name != "prefix_rule":
            raise RulesError(f"{where}: unknown function {name or '?'}()")
        rules.append(_prefix_rule(_literal_args(call, where), where))
    return rules


def _call_of(statement: ast.stmt, source: str) -> ast.Call | None:
    """The call a top-level statement makes; None for a bare string (a docstring)."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        return statement.value
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return None
    raise RulesError(f"{source}:{statement.lineno}: only prefix_rule(...) calls are supported")


def _literal_args(call: ast.Call, where: str) -> dict[str, Any]:
    if len(call.args) > 1 or any(kw.arg is None for kw in call.keywords):
        raise RulesError(f"{where}: arguments must be given by name")
    try:
        args = {str(kw.arg): ast.literal_eval(kw.value) for kw in call.keywords}
        if call.args:
            args["pattern"] = ast.literal_eval(call.args[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise RulesError(f"{where}: arguments must be literals (strings and lists)") from None
    return args


def _prefix_rule(args: dict[str, Any], where: str) -> PrefixRule:
    unknown = set(args) - _PREFIX_RULE_ARGS
    if unknown:
        raise RulesError(f"{where}: prefix_rule() got unexpected argument {sorted(unknown)[0]!r}")
    decision = args.get("decision", "allow")
    if decision not in DECISIONS:
        raise RulesError(f"{where}: decision must be one of allow, prompt, forbidden; got {decision!r}")
    justification = args.get("justification")
    if justification is not None and (not isinstance(justification, str) or not justification.strip()):
        raise RulesError(f"{where}: justification must be a non-empty string")
    rule = PrefixRule(_pattern(args.get("pattern"), where), decision, justification)
    for example in _examples(args.get("match"), where, "match"):
        if not rule.matches(example):
            raise RulesError(f"{where}: the match example {shlex.join(example)!r} does not match the rule")
    for example in _examples(args.get("not_match"), where, "not_match"):
        if rule.matches(example):
            raise RulesError(f"{where}: the not_match example {shlex.join(example)!r} matches the rule")
    return rule


def _pattern(value: Any, where: str) -> tuple[frozenset[str], ...]:
    if not isinstance(value, list | tuple) or not value:
        raise RulesError(f"{where}: pattern must be a non-empty list")
    tokens: list[frozenset[str]] = []
    for item in value:
        alternatives = [item] if isinstance(item, str) else item
        if (
            not isinstance(alternatives, list | tuple)
            or not alternatives
            or not all(isinstance(a, str) and a for a in alternatives)
        ):
            raise RulesError(f"{where}: each pattern element must be a string or a list of strings")
        tokens.append(frozenset(alternatives))
    return tuple(tokens)


def _examples(value: Any, where: str, name: str) -> list[list[str]]:
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise RulesError(f"{where}: {name} must be a list of examples")
    examples: list[list[str]] = []
    for example in value:
        if isinstance(example, str):
            examples.append(shlex.split(example))
        elif isinstance(example, list | tuple) and all(isinstance(t, str) for t in example):
            examples.append(list(example))
        else:
            raise RulesError(f"{where}: each {name} example must be a string or a list of strings")
    return examples


# ---- files --------------------------------------------------------------------------------------


def load_policy(rules_dir: Path) -> ExecPolicy:
    """Every `*.rules` file in `rules_dir`, in name order.

    Only a file the user controls may loosen the policy: a regular file (not a symlink), owned
    by the daemon's user or root, writable by nobody else, in a directory of the same kind. Any
    other file (one a model could have written, say a symlink into a workspace) contributes its
    `prompt` and `forbidden` rules only, and is skipped when invalid, so it can neither allow a
    command nor void the policy.

    Raises:
        RulesError: a file the user controls is unreadable or invalid.
    """
    dir_trusted = _user_controlled(rules_dir)
    rules: list[PrefixRule] = []
    for path in sorted(rules_dir.glob("*.rules")):
        trusted = dir_trusted and _user_controlled(path)
        try:
            parsed = parse_rules(_read_text(path), str(path))
        except RulesError as exc:
            if trusted:
                raise
            _log.warning("execpolicy.untrusted_invalid_skipped", path=str(path), error=str(exc))
            continue
        if not trusted:
            _log.warning(
                "execpolicy.untrusted_file", path=str(path), effect="prompt and forbidden rules only"
            )
            parsed = [rule for rule in parsed if rule.decision != "allow"]
        rules += parsed
    return ExecPolicy(tuple(rules))


def _user_controlled(path: Path) -> bool:
    try:
        st = path.lstat()
    except OSError:
        return False
    owner_ok = st.st_uid in (os.geteuid(), 0)
    return owner_ok and not stat.S_ISLNK(st.st_mode) and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _read_text(path: Path) -> str:
    """A rules file's text; a FIFO or device is refused rather than blocking the daemon."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise RulesError(f"{path}: cannot read: not a regular file")
            return file.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesError(f"{path}: cannot read: {exc}") from None


def format_allow_rule(prefix: Sequence[str]) -> str:
    """The `prefix_rule` line that allows commands starting with `prefix`."""
    tokens = ", ".join(json.dumps(token, ensure_ascii=False) for token in prefix)
    return f'prefix_rule(pattern=[{tokens}], decision="allow")\n'


def _signature(rules_dir: Path) -> tuple[tuple[str, int, int], ...]:
    try:
        paths = sorted(rules_dir.glob("*.rules"))
        return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in paths)
    except OSError:
        return ()


@dataclass
class ExecRules:
    """The rules of one Tether home: reloaded when the files change, extended by approvals.

    Reloading mid-turn is safe because only the user can change what loosens the policy: the
    home is hidden from sandboxed commands, patches never write it (`apply_patch.boundary`),
    and `load_policy` lets only user-controlled files allow anything. An invalid file the user
    controls makes the whole policy empty (with a logged warning), as Codex does.
    """

    rules_dir: Path
    extra: tuple[PrefixRule, ...] = ()
    _loaded: ExecPolicy = field(default_factory=ExecPolicy)
    _signature: tuple[tuple[str, int, int], ...] | None = None

    def policy(self) -> ExecPolicy:
        """The current policy (files first, then `extra` rules from config)."""
        signature = _signature(self.rules_dir)
        if signature != self._signature:
            self._signature = signature
            try:
                self._loaded = load_policy(self.rules_dir)
            except RulesError as exc:
                _log.warning("execpolicy.invalid", error=str(exc))
                self._loaded = ExecPolicy()
        return ExecPolicy(self._loaded.rules + self.extra)

    def allow_prefix(self, prefix: Sequence[str]) -> None:
        """Persist `prefix_rule(pattern=prefix, decision="allow")` in the default rules file.

        Raises:
            RulesError: `prefix` is empty or not all strings.
            OSError: the file cannot be written.
        """
        if not prefix or not all(isinstance(t, str) and t for t in prefix):
            raise RulesError("an execpolicy amendment must be a non-empty list of strings")
        self.rules_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = self.rules_dir / DEFAULT_RULES_FILE
        # O_NOFOLLOW: the user's approval is written into the home, never through a planted link.
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "r+", encoding="utf-8") as out:
            existing = out.read()
            separator = "" if not existing or existing.endswith("\n") else "\n"
            out.write(separator + format_allow_rule(prefix))
        self._signature = None
