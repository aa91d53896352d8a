"""The `exec_command` / `write_stdin` runtime (unified exec): commands in a PTY or pipes, kept per thread.

Typical use by the tool handler::

    sessions = ProcessSessions(wrap=sandbox_wrapper)
    argv = build_shell_argv(args.cmd, args.shell, args.login)
    result = await sessions.exec_command(ExecRequest(argv, cwd, env, tty=args.tty), on_delta)
    text = result.model_text()

Errors for the model: `SpawnError` → "exec_command failed for `{cmd}`: {err}",
`UnknownSessionError` → "write_stdin failed: {err}" (core.md §3.3).
"""

from tether_server.tools.exec.output import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    approx_token_count,
    format_model_text,
    looks_like_sandbox_denial,
    truncate_for_model,
)
from tether_server.tools.exec.process import OutputSink, SpawnError
from tether_server.tools.exec.sessions import (
    ArgvWrapper,
    ExecRequest,
    ExecResult,
    ProcessSessions,
    StdinClosedError,
    UnknownSessionError,
)
from tether_server.tools.exec.shell import (
    build_shell_argv,
    default_shell,
    join_command,
    parse_command_actions,
)

__all__ = [
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "ArgvWrapper",
    "ExecRequest",
    "ExecResult",
    "OutputSink",
    "ProcessSessions",
    "SpawnError",
    "StdinClosedError",
    "UnknownSessionError",
    "approx_token_count",
    "build_shell_argv",
    "default_shell",
    "format_model_text",
    "join_command",
    "looks_like_sandbox_denial",
    "parse_command_actions",
    "truncate_for_model",
]
