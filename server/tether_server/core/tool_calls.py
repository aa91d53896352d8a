"""Running the model's tool calls and turning each into items and a model-visible output."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether_server import metrics, telemetry
from tether_server.core import events as ev
from tether_server.core import items, safety
from tether_server.core.approval import Ask, ask_once
from tether_server.core.exec_plan import plan_exec
from tether_server.core.execpolicy import ExecRules
from tether_server.core.ids import now_ms
from tether_server.core.ports import EventSink
from tether_server.errors import SandboxError, TetherError
from tether_server.sandbox.runner import PreparedCommand
from tether_server.tools import apply_patch as ap
from tether_server.tools.exec.requested_shell import ShellRefusedError
from tether_server.tools.exec.sessions import ExecRequest, ProcessSessions
from tether_server.tools.exec.shell import build_shell_argv, join_command, parse_command_actions

PARALLEL_TOOLS = frozenset({"exec_command"})
CommandGate = Callable[[dict[str, Any], Path, Path, list[str], bool], PreparedCommand]
"""(sandbox policy, policy cwd, workdir, argv, sandboxed) → the command to spawn; raises SandboxError
when it cannot. Only the policy cwd (the turn's) is a writable root; the workdir is where it starts."""


@dataclass
class ToolContext:
    thread_id: str
    turn_id: str
    cwd: Path
    sandbox_policy: dict[str, Any]
    sink: EventSink
    processes: ProcessSessions
    env: Mapping[str, str]
    gate: CommandGate
    record_item: Callable[[items.ThreadItem], None]
    approval_policy: Any = "on-request"
    ask: Ask | None = None
    set_flags: Callable[[list[str]], Awaitable[None]] | None = None
    approved_for_session: set[str] = field(default_factory=set)
    turn_files_before: dict[Path, str | None] = field(default_factory=dict)
    session_items: dict[int, str] = field(default_factory=dict)
    exec_rules: ExecRules | None = None
    allow_login_shell: bool = True
    # Never written by a patch, even when approved (the daemon's home, sockets, tokens).
    private_paths: tuple[Path, ...] = ()
    # Hidden from commands but not the daemon's (credential stores): a patch there needs approval.
    hidden_paths: tuple[Path, ...] = ()
    # Tools from outside (MCP servers, the client's dynamic tools): None when `name` is not theirs.
    external: Callable[[ToolContext, str, str, dict[str, Any]], Awaitable[ToolOutput | None]] | None = None


@dataclass
class ToolOutput:
    text: str
    success: bool = True


async def _started(ctx: ToolContext, item: items.ThreadItem) -> None:
    await ctx.sink.emit(ev.ItemStarted(ctx.thread_id, ctx.turn_id, item))


async def _completed(ctx: ToolContext, item: items.CommandExecution | items.FileChange | items.Plan) -> None:
    item.completed_at_ms = now_ms()
    ctx.record_item(item)
    await ctx.sink.emit(ev.ItemCompleted(ctx.thread_id, ctx.turn_id, item))


def _failed(item: items.CommandExecution, output: str) -> None:
    """A command that could not start: failed, with the reason as its output."""
    item.status, item.aggregated_output, item.duration_ms = "failed", output, 0


def parse_arguments(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        raise ToolArgumentError(f"failed to parse function arguments: {exc}") from None
    if not isinstance(value, dict):
        raise ToolArgumentError("failed to parse function arguments: expected a JSON object")
    return value


class ToolArgumentError(Exception):
    pass


def _int_arg(args: dict[str, Any], name: str, default: int | None) -> int | None:
    value = args.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolArgumentError(f"failed to parse function arguments: `{name}` must be a number")
    return int(value)


async def _ask(ctx: ToolContext, question: ev.ApprovalAsk, session_key: str) -> tuple[bool, bool]:
    return await ask_once(ctx.ask, question, session_key, ctx.approved_for_session, ctx.exec_rules)


async def _flags(ctx: ToolContext, flags: list[str]) -> None:
    if ctx.set_flags is not None:
        await ctx.set_flags(flags)


async def exec_command(ctx: ToolContext, call_id: str, args: dict[str, Any]) -> ToolOutput:
    cmd = args.get("cmd")
    if not isinstance(cmd, str) or not cmd.strip():
        raise ToolArgumentError("failed to parse function arguments: missing field `cmd`")
    try:
        plan = plan_exec(ctx, cmd, args)
    except ShellRefusedError as exc:
        return ToolOutput(f"exec_command failed for `{cmd}`: {exc}", success=False)
    argv, cwd, decision = plan.argv, plan.cwd, plan.decision
    if decision.verdict == "reject":
        return ToolOutput(decision.reason or "rejected", success=False)
    item = items.CommandExecution(call_id, join_command(argv), str(cwd), parse_command_actions(cmd), now_ms())
    if decision.verdict == "prompt":
        refused = await _approve_command(ctx, item, decision, plan.session_key, args.get("justification"))
        if refused is not None:
            return refused
    else:
        await _started(ctx, item)
    return await _run_command(ctx, item, cmd, cwd, argv, args, sandboxed=decision.sandboxed)


async def _approve_command(
    ctx: ToolContext,
    item: items.CommandExecution,
    decision: safety.CommandDecision,
    key: str,
    justification: Any,
) -> ToolOutput | None:
    """Ask about a command; None when it may run, else what the model is told."""
    await _flags(ctx, ["waitingOnApproval"])
    await _started(ctx, item)
    question = ev.CommandApprovalAsk(
        ctx.thread_id,
        ctx.turn_id,
        item.id,
        item.started_at_ms,
        item.command,
        item.cwd,
        item.command_actions,
        justification if isinstance(justification, str) else decision.reason,
        decision.amendment,
    )
    accepted, failed = await _ask(ctx, question, key)
    if not accepted:
        item.status = "failed" if failed else "declined"
        await _completed(ctx, item)
        await _flags(ctx, [])
        return ToolOutput("exec command rejected by user", success=False)
    await _flags(ctx, [])
    return None


async def _run_command(
    ctx: ToolContext,
    item: items.CommandExecution,
    cmd: str,
    cwd: Path,
    argv: list[str],
    args: dict[str, Any],
    *,
    sandboxed: bool,
) -> ToolOutput:
    call_id = item.id
    started = time.monotonic()
    try:
        prepared = ctx.gate(ctx.sandbox_policy, ctx.cwd, cwd, argv, sandboxed)
    except SandboxError as exc:
        _failed(item, exc.message)
        await _completed(ctx, item)
        return ToolOutput(f"exec_command failed for `{cmd}`: {exc.message}", success=False)

    def on_output(text: str) -> None:
        ctx.sink.emit_delta(ev.CommandOutputDelta(ctx.thread_id, ctx.turn_id, call_id, text))

    request = ExecRequest(
        argv=prepared.argv,
        cwd=cwd,
        env=ctx.env,
        tty=bool(args.get("tty", False)),
        yield_time_ms=_int_arg(args, "yield_time_ms", 10_000) or 10_000,
        max_output_tokens=_int_arg(args, "max_output_tokens", None),
        pass_fds=prepared.pass_fds,
        on_exit=prepared.cleanup,
    )
    try:
        result = await ctx.processes.exec_command(request, on_output)
    except TetherError as exc:
        _failed(item, exc.message)
        await _completed(ctx, item)
        return ToolOutput(f"exec_command failed for `{cmd}`: {exc.message}", success=False)
    item.aggregated_output = result.output
    item.exit_code = result.exit_code
    item.duration_ms = int((time.monotonic() - started) * 1000)
    item.process_id = str(result.session_id) if result.session_id is not None else None
    item.status = "completed" if result.exit_code in (0, None) else "failed"
    if result.session_id is not None:
        ctx.session_items[result.session_id] = call_id
    await _completed(ctx, item)
    return ToolOutput(result.model_text())


async def write_stdin(ctx: ToolContext, call_id: str, args: dict[str, Any]) -> ToolOutput:
    session_id = _int_arg(args, "session_id", None)
    if session_id is None:
        raise ToolArgumentError("failed to parse function arguments: missing field `session_id`")
    chars = args.get("chars") or ""
    item_id = ctx.session_items.get(session_id, call_id)
    if chars:
        ctx.sink.emit_delta(
            ev.TerminalInteraction(ctx.thread_id, ctx.turn_id, item_id, str(session_id), str(chars))
        )

    def on_output(text: str) -> None:
        ctx.sink.emit_delta(ev.CommandOutputDelta(ctx.thread_id, ctx.turn_id, item_id, text))

    try:
        result = await ctx.processes.write_stdin(
            session_id,
            str(chars),
            _int_arg(args, "yield_time_ms", 250) or 250,
            _int_arg(args, "max_output_tokens", None),
            on_output,
        )
    except TetherError as exc:
        return ToolOutput(f"write_stdin failed: {exc.message}", success=False)
    return ToolOutput(result.model_text())


def _plan_status(value: Any) -> str:
    return {"in_progress": "inProgress", "completed": "completed"}.get(str(value), "pending")


async def update_plan(ctx: ToolContext, call_id: str, args: dict[str, Any]) -> ToolOutput:
    raw_plan = args.get("plan")
    if not isinstance(raw_plan, list) or not all(isinstance(s, dict) and "step" in s for s in raw_plan):
        raise ToolArgumentError("failed to parse function arguments: `plan` must be a list of {step, status}")
    plan = tuple(ev.PlanStep(str(s["step"]), _plan_status(s.get("status"))) for s in raw_plan)
    explanation = args.get("explanation")
    explanation = explanation if isinstance(explanation, str) else None
    marks = {"pending": "[ ]", "inProgress": "[~]", "completed": "[x]"}
    text = "\n".join(f"{marks[p.status]} {p.step}" for p in plan)
    item = items.Plan(call_id, text, now_ms())
    await _started(ctx, item)
    await ctx.sink.emit(ev.PlanUpdated(ctx.thread_id, ctx.turn_id, explanation, plan))
    await _completed(ctx, item)
    return ToolOutput("Plan updated")


async def _approve_patch(
    ctx: ToolContext, item: items.FileChange, checked: ap.CheckedPatch
) -> ToolOutput | None:
    """None when the patch may be written; otherwise what the model is told."""
    changes = checked.changes
    verdict, reason = safety.patch_verdict(
        ctx.approval_policy, ctx.sandbox_policy, not checked.escalations, checked.reason
    )
    if verdict == "allow":
        return None
    if verdict == "reject":
        item.status = "declined"
        await _completed(ctx, item)
        return ToolOutput(f"patch rejected: {reason}", success=False)
    files = tuple(str(c.path) for c in changes)
    question = ev.FileChangeApprovalAsk(ctx.thread_id, ctx.turn_id, item.id, item.started_at_ms, files)
    await _flags(ctx, ["waitingOnApproval"])
    key = "patch:" + ",".join(sorted(files))
    accepted, failed = await _ask(ctx, question, key)
    await _flags(ctx, [])
    if accepted:
        return None
    item.status = "failed" if failed else "declined"
    await _completed(ctx, item)
    return ToolOutput("patch rejected by user", success=False)


async def apply_patch(
    ctx: ToolContext, call_id: str, patch_text: str, base: Path | None = None
) -> ToolOutput:
    """Apply a patch whose relative paths resolve against `base` (the turn's cwd by default)."""
    started = time.monotonic()
    boundary = ap.PatchBoundary.for_turn(
        ctx.sandbox_policy, ctx.cwd, ctx.env, ctx.private_paths, ctx.hidden_paths
    )
    try:
        hunks = ap.parse_patch(patch_text)
        if not hunks:
            return ToolOutput(ap.EMPTY_PATCH_TEXT, success=False)
        patch_cwd = base or ctx.cwd
        boundary.check_private(hunks, patch_cwd)
        changes = ap.plan_patch(hunks, patch_cwd, None)
        checked = boundary.check(changes)
    except ap.PatchRefusedError as exc:
        return ToolOutput(f"patch rejected: {exc}", success=False)
    except ap.PatchError as exc:
        return ToolOutput(ap.verification_failed_text(exc), success=False)
    item = items.FileChange(call_id, ap.changes_to_wire(changes, ctx.cwd), now_ms())
    await _started(ctx, item)
    refused = await _approve_patch(ctx, item, checked)
    if refused is not None:
        return refused
    for change in changes:
        ctx.turn_files_before.setdefault(change.path, change.old_content)
        if change.move_path is not None:
            ctx.turn_files_before.setdefault(change.move_path, None)
    try:
        checked.apply()
    except ap.PatchError as exc:
        item.status = "failed"
        await _completed(ctx, item)
        return ToolOutput(ap.verification_failed_text(exc), success=False)
    item.status = "completed"
    await _completed(ctx, item)
    await emit_turn_diff(ctx)
    wall = time.monotonic() - started
    return ToolOutput(f"Exit code: 0\nWall time: {wall:.1f} seconds\nOutput:\n{ap.summarize(changes)}")


async def emit_turn_diff(ctx: ToolContext) -> None:
    after: dict[Path, str | None] = {}
    for path in ctx.turn_files_before:
        try:
            after[path] = ap.read_regular(path).decode("utf-8")  # a planted FIFO must not block
        except (FileNotFoundError, IsADirectoryError):
            after[path] = None
        except (OSError, UnicodeDecodeError):
            continue
    diff = ap.turn_diff(ctx.turn_files_before, after, ctx.cwd)
    await ctx.sink.emit(ev.DiffUpdated(ctx.thread_id, ctx.turn_id, diff))


async def dispatch(ctx: ToolContext, call: dict[str, Any]) -> dict[str, Any]:
    """Run one call item (`function_call` / `custom_tool_call`); returns its output history item."""
    kind = call.get("type")
    name = str(call.get("name", ""))
    call_id = str(call.get("call_id", ""))
    out_type = "custom_tool_call_output" if kind == "custom_tool_call" else "function_call_output"
    with telemetry.span("tool.call", {"gen_ai.tool.name": name}) as span, metrics.tool_call(name) as timed:
        try:
            output = await _run(ctx, kind, name, call_id, call)
        except ToolArgumentError as exc:
            output = ToolOutput(str(exc), success=False)
        timed.outcome = "ok" if output.success else "failed"
        span.set({"tether.tool.success": output.success})
    return {"type": out_type, "call_id": call_id, "output": output.text}


def _patch_base(ctx: ToolContext, args: dict[str, Any], invocation: ap.PatchInvocation) -> Path:
    """`workdir`, then the script's `cd <dir>`, each relative to the one before (as the shell would)."""
    base = ctx.cwd
    workdir = args.get("workdir")
    if isinstance(workdir, str) and workdir:
        base = base / workdir
    if invocation.workdir:
        base = base / invocation.workdir
    return base.resolve()


async def _run(ctx: ToolContext, kind: Any, name: str, call_id: str, call: dict[str, Any]) -> ToolOutput:
    if kind == "custom_tool_call":
        if name == "apply_patch":
            return await apply_patch(ctx, call_id, str(call.get("input", "")))
        return ToolOutput(f"unsupported custom tool call: {name}", success=False)
    args = parse_arguments(str(call.get("arguments", "")))
    if name == "exec_command":
        invocation = ap.parse_invocation(build_shell_argv(str(args.get("cmd", "")), None, True))
        if invocation is not None:
            return await apply_patch(ctx, call_id, invocation.patch, _patch_base(ctx, args, invocation))
        return await exec_command(ctx, call_id, args)
    if name == "write_stdin":
        return await write_stdin(ctx, call_id, args)
    if name == "update_plan":
        return await update_plan(ctx, call_id, args)
    if name == "apply_patch":
        return await apply_patch(ctx, call_id, str(args.get("input", "")))
    if ctx.external is not None and (output := await ctx.external(ctx, call_id, name, args)) is not None:
        return output
    return ToolOutput(f"unsupported call: {name}", success=False)
