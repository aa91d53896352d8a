"""The command line of `tether exec`: the flags of `codex exec` 0.169.0, plus `--remote`.

`tether exec [OPTIONS] [PROMPT]` and `tether exec [OPTIONS] resume [OPTIONS] [SESSION_ID] [PROMPT]`
(`resume --last [PROMPT]`). As with Codex, options given before `resume` apply to it too, and the
`resume` part takes the subset Codex's `exec resume` takes. Codex options Tether cannot honour
are refused by name rather than silently ignored.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
APPROVALS = ("untrusted", "on-failure", "on-request", "never")
OSS_PROVIDERS = ("ollama", "lmstudio")
_UNSUPPORTED = (
    "--approve-for-me",
    "--dangerously-bypass-hook-trust",
    "--worktree",
    "--trust",
    "--ignore-user-config",
    "--ignore-rules",
)
_UNSUPPORTED_COMMANDS = ("fork", "review")


class UsageError(Exception):
    """Bad arguments: reported with the usage line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}\n\n{self.format_usage().rstrip()}")


class _Refuse(argparse.Action):
    """A Codex option that has no Tether counterpart: a clear error naming it."""

    def __call__(
        self, parser: argparse.ArgumentParser, ns: Any, values: Any, option: str | None = None
    ) -> None:
        raise UsageError(f"{option} is a `codex exec` option that tether exec does not support")


def _shared(parser: argparse.ArgumentParser) -> None:
    """Options both `exec` and `exec resume` take."""
    add = parser.add_argument
    add("-c", "--config", dest="overrides", action="append", default=[], metavar="key=value")
    add("--enable", dest="enable", action="append", default=[], metavar="FEATURE")
    add("--disable", dest="disable", action="append", default=[], metavar="FEATURE")
    add("--strict-config", action="store_true", default=None, help="unknown config keys are errors")
    add("-m", "--model", default=None)
    add("--dangerously-bypass-approvals-and-sandbox", dest="yolo", action="store_true", default=None)
    add("--skip-git-repo-check", action="store_true", default=None)
    add("--ephemeral", action="store_true", default=None, help="do not keep the thread")
    add("--output-schema", type=Path, default=None, metavar="FILE", help="JSON Schema of the final answer")
    add("--json", "--experimental-json", dest="json", action="store_true", default=None)
    add("-o", "--output-last-message", type=Path, default=None, metavar="FILE")
    add("--thread-source", default=None, metavar="SOURCE", help="source label of a new thread")
    add("--cyber-access-program", default=None, help="accepted; OpenAI-provider only, no effect on Tether")
    add("--oss", action="store_true", default=None, help="run on a local model server (see --local-provider)")
    add(
        "--local-provider",
        choices=OSS_PROVIDERS,
        default=None,
        help="with --oss: which (default: oss_provider)",
    )
    for flag in _UNSUPPORTED:
        add(flag, action=_Refuse, nargs="?", help=argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    """`tether exec`'s own options (everything before `resume`)."""
    parser = _Parser(
        prog="tether exec",
        description="Run one agent turn non-interactively (the command line of `codex exec`).",
        epilog="`tether exec [OPTIONS] resume [SESSION_ID | --last] [PROMPT]` continues a thread "
        "(see `tether exec resume --help`). Events and behaviour: docs/exec.md.",
        allow_abbrev=False,
    )
    parser.add_argument("prompt", nargs="?", default=None, help="the task; `-` or nothing reads stdin")
    _shared(parser)
    add = parser.add_argument
    add("-i", "--image", dest="images", action="extend", nargs="+", default=[], type=Path, metavar="FILE")
    add("-p", "--profile", default=None, help="config profile to apply")
    add("-s", "--sandbox", choices=SANDBOX_MODES, default=None)
    add("--full-auto", action="store_true", help="workspace-write sandbox, approvals on request")
    add("-C", "--cd", type=Path, default=None, metavar="DIR", help="working directory of the agent")
    add("--add-dir", dest="add_dirs", action="append", default=[], type=Path, metavar="DIR")
    add("--color", choices=("always", "never", "auto"), default="auto")
    add("--remote", default=None, metavar="URL", help="run on a daemon: unix://, unix://PATH, ws://HOST:PORT")
    add("--remote-auth-token-env", default=None, metavar="VAR", help="env var holding the bearer token")
    return parser


def build_resume_parser() -> argparse.ArgumentParser:
    """`tether exec resume`'s options."""
    parser = _Parser(
        prog="tether exec resume",
        description="Resume a thread by id, or the newest with --last.",
        allow_abbrev=False,
    )
    parser.add_argument("positionals", nargs="*", metavar="[SESSION_ID] [PROMPT]")
    _shared(parser)
    add = parser.add_argument
    add("--last", action="store_true", help="resume the most recent thread (of this directory)")
    add("--all", action="store_true", help="with --last: any directory")
    add("-i", "--image", dest="images", action="append", default=[], type=Path, metavar="FILE")
    return parser


def _split_at_command(argv: list[str], parser: argparse.ArgumentParser) -> int | None:
    """Index of a `resume` (or refused subcommand) token in command position, if any."""
    takes_value = {flag for action in parser._actions if action.nargs != 0 for flag in action.option_strings}
    index = 0
    while index < len(argv):
        token = argv[index]
        if token == "--":
            return None
        if token.startswith("-") and token != "-":
            if "=" not in token and token in takes_value:
                index += 1
            index += 1
            continue
        return index if token in ("resume", *_UNSUPPORTED_COMMANDS) else None
    return None


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """Parse `tether exec`'s arguments; raises UsageError with a message naming the problem."""
    args_list = list(argv)
    parser = build_parser()
    at = _split_at_command(args_list, parser)
    if at is None:
        ns = parser.parse_args(args_list)
        ns.resume = False
        return _normalise(ns)
    if args_list[at] in _UNSUPPORTED_COMMANDS:
        raise UsageError(f"`exec {args_list[at]}` is not supported by tether exec")
    ns = parser.parse_args(args_list[:at])
    if ns.prompt is not None:
        raise UsageError(f"unexpected argument {ns.prompt!r} before `resume`")
    sub = build_resume_parser().parse_args(args_list[at + 1 :])
    for key, value in vars(sub).items():
        if isinstance(value, list) and key != "positionals":
            setattr(ns, key, [*getattr(ns, key, []), *value])
        elif value is not None and key not in ("positionals",):
            setattr(ns, key, value)
    ns.resume = True
    ns.session_id, ns.prompt = _resume_positionals(sub.positionals, last=sub.last)
    return _normalise(ns)


def _resume_positionals(values: list[str], *, last: bool) -> tuple[str | None, str | None]:
    if last:
        if len(values) > 1:
            raise UsageError("resume --last takes no session id, only a prompt")
        return None, values[0] if values else None
    if not values:
        raise UsageError("resume needs a session id, or --last")
    if len(values) > 2:
        raise UsageError(f"unexpected argument {values[2]!r}")
    return values[0], values[1] if len(values) == 2 else None


def _normalise(ns: argparse.Namespace) -> argparse.Namespace:
    for flag in ("strict_config", "yolo", "skip_git_repo_check", "ephemeral", "json", "oss"):
        if getattr(ns, flag) is None:
            setattr(ns, flag, False)
    for attr in ("last", "all"):
        if not hasattr(ns, attr):
            setattr(ns, attr, False)
    if not hasattr(ns, "session_id"):
        ns.session_id = None
    if ns.oss:
        # As `codex exec --oss`: the server resolves `oss` to `oss_provider` (and a gpt-oss model
        # when none is named), and says so clearly when neither flag nor config picks one.
        ns.overrides = [*ns.overrides, 'model_provider="oss"']
        if ns.local_provider:
            ns.overrides.append(f'oss_provider="{ns.local_provider}"')
    elif ns.local_provider:
        raise UsageError("--local-provider goes with --oss")
    if ns.yolo and (ns.full_auto or ns.sandbox not in (None, "danger-full-access")):
        raise UsageError("--dangerously-bypass-approvals-and-sandbox cannot be combined with a sandbox")
    return ns
