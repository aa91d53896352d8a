"""What one `exec_command` call would run, where, whether it may, and under which approval key."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_server.core import safety
from tether_server.tools.exec.requested_shell import resolve_requested_shell
from tether_server.tools.exec.shell import build_shell_argv

if TYPE_CHECKING:
    from tether_server.core.toolbox import ToolContext


@dataclass(frozen=True)
class ExecPlan:
    argv: list[str]
    cwd: Path
    decision: safety.CommandDecision
    session_key: str


def plan_exec(ctx: ToolContext, cmd: str, args: dict[str, Any]) -> ExecPlan:
    """The shell argv, workdir, decision and accept-for-session key of a call.

    Raises:
        ShellRefusedError: the model's `shell` is not a system shell (`requested_shell`).
    """
    workdir = args.get("workdir")
    cwd = (ctx.cwd / workdir).resolve() if isinstance(workdir, str) and workdir else ctx.cwd
    shell = resolve_requested_shell(
        args.get("shell"), workdir=cwd, sandbox_policy=ctx.sandbox_policy, policy_cwd=ctx.cwd, env=ctx.env
    )
    argv = build_shell_argv(cmd, shell, bool(args.get("login", True)) and ctx.allow_login_shell)
    # Rules and approvals speak of commands as the user's own shell runs them; another shell or
    # login mode reads other startup files, so it is another command.
    usual = argv[:2] == build_shell_argv(cmd, None, ctx.allow_login_shell)[:2]
    decision = safety.assess_command(
        ctx.approval_policy,
        ctx.sandbox_policy,
        cmd,
        args.get("sandbox_permissions") == "require_escalated",
        rules=ctx.exec_rules.policy() if ctx.exec_rules is not None else None,
        argv=argv,
        requested_prefix=args.get("prefix_rule"),
        usual_shell=usual,
    )
    # The whole argv (shell, login mode, script) and the sandboxing asked for, as Codex keys it:
    # "yes for this session" to `git status` is not a yes to it under another shell or unsandboxed.
    key = json.dumps([str(cwd), argv, args.get("sandbox_permissions")], default=str)
    return ExecPlan(argv, cwd, decision, f"exec:{key}")
