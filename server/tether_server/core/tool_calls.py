"""Running the model's tool calls and turning each into items and a model-visible output."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from tether_server.core import events as ev
from tether_server.core import items, safety
from tether_server.core import tool_specs as specs
from tether_server.core.approval import ask_once
from tether_server.core.exec_plan import plan_exec
from tether_server.core.ids import now_ms
from tether_server.core.shell_snapshot import open_snapshot, snapshot_sandbox
from tether_server.core.toolbox import Tool, ToolArgumentError, ToolCall, ToolContext, ToolOutput
from tether_server.core.view_image import view_image
from tether_server.errors import SandboxError, TetherError
from tether_server.sandbox.messages import new_protected_warning
from tether_server.tools import apply_patch as ap
from tether_server.tools.exec.requested_shell import ShellRefusedError
from tether_server.tools.exec.sessions import ExecRequest
from tether_server.tools.exec.shell import build_shell_argv, join_command, parse_command_actions


async def _started(ctx: ToolContext, item: items.ThreadItem) -> None:
    await ctx.sink.emit(ev.ItemStarted(ctx.thread_id, ctx.turn_id, item))


async def _completed(ctx: ToolContext, item: items.CommandExecution | items.FileChange | items.Plan) -> None:
    item.completed_at_ms = now_ms()
    ctx.record_item(item)
    await ctx.sink.emit(ev.ItemCompleted(ctx.thread_id, ctx.turn_id, item))


def _failed(item: items.CommandExecution, output: str) -> None:
    """A command that could not start: failed, with the reason as its output."""
    item.status, item.aggregated_output, item.duration_ms = "failed", output, 0


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
    asked = decision.verdict == "prompt"
    if asked and ctx.hooks is not None:
        verdict = await ctx.hooks.permission("Bash", {"command": cmd}, call_id)
        if verdict is not None and not verdict[0]:
            # Codex's words for a command a PermissionRequest hook denied; it never starts.
            denied = f'exec_command failed: CreateProcess {{ message: "Rejected(\\"{verdict[1]}\\")" }}'
            return ToolOutput(denied, success=False)
        asked = verdict is None
    if asked:
        refused = await _approve_command(ctx, item, decision, plan.session_key, args.get("justification"))
        if refused is not None:
            return refused
    # As Codex 0.169.0: the command's process id and `unifiedExecStartup` from the moment it runs;
    # a command that waited for approval started as the agent's, without one.
    process_id = ctx.processes.reserve_id()
    item.process_id, item.source = str(process_id), "unifiedExecStartup"
    return await _run_command(
        ctx, item, cmd, cwd, argv, args, process_id, sandboxed=decision.sandboxed, announce=not asked
    )


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
    process_id: int,
    *,
    sandboxed: bool,
    announce: bool,
) -> ToolOutput:
    # A login shell's profile comes from the thread's snapshot when there is one (shell_snapshot.py).
    wrap = snapshot_sandbox(ctx.gate, ctx.sandbox_policy, ctx.cwd)
    run_argv, snapshot_fd = await open_snapshot(
        ctx.shell_snapshots, ctx.thread_id, argv, ctx.cwd, ctx.env, wrap
    )
    fds = () if snapshot_fd is None else (snapshot_fd,)
    try:
        return await _spawn(ctx, item, cmd, cwd, run_argv, args, process_id, fds, sandboxed, announce)
    finally:
        if snapshot_fd is not None:
            os.close(snapshot_fd)


async def _spawn(
    ctx: ToolContext,
    item: items.CommandExecution,
    cmd: str,
    cwd: Path,
    argv: list[str],
    args: dict[str, Any],
    process_id: int,
    extra_fds: tuple[int, ...],
    sandboxed: bool,
    announce: bool,
) -> ToolOutput:
    call_id = item.id
    started = time.monotonic()
    try:
        prepared = ctx.gate(ctx.sandbox_policy, ctx.cwd, cwd, argv, sandboxed)
    except SandboxError as exc:
        if announce:
            await _started(ctx, item)
        _failed(item, exc.message)
        await _completed(ctx, item)
        return ToolOutput(f"exec_command failed for `{cmd}`: {exc.message}", success=False)
    # Announced once its sandbox is planned, as Codex announces a command once it has spawned it.
    if announce:
        await _started(ctx, item)

    def on_output(text: str) -> None:
        ctx.sink.emit_delta(ev.CommandOutputDelta(ctx.thread_id, ctx.turn_id, call_id, text))

    def on_new_protected(paths: list[Path]) -> None:
        ctx.sink.emit_delta(ev.ThreadWarning(ctx.thread_id, new_protected_warning(cmd, paths)))

    prepared.on_new_protected = on_new_protected
    request = ExecRequest(
        argv=prepared.argv,
        cwd=cwd,
        env=ctx.env,
        tty=bool(args.get("tty", False)),
        yield_time_ms=_int_arg(args, "yield_time_ms", 10_000) or 10_000,
        max_output_tokens=_int_arg(args, "max_output_tokens", None),
        pass_fds=(*prepared.pass_fds, *extra_fds),
        on_exit=prepared.cleanup,
        label=cmd,
        item_id=call_id,
    )
    try:
        result = await ctx.processes.exec_command(request, on_output, process_id)
    except TetherError as exc:
        _failed(item, exc.message)
        await _completed(ctx, item)
        return ToolOutput(f"exec_command failed for `{cmd}`: {exc.message}", success=False)
    item.aggregated_output = result.output
    item.exit_code = result.exit_code
    item.duration_ms = int((time.monotonic() - started) * 1000)
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


# ---- the built-in tools as the registry knows them ------------------------------------------------


async def _exec_tool(ctx: ToolContext, call: ToolCall) -> ToolOutput:
    args = call.arguments()
    # A patch sent as a shell command (`apply_patch <<EOF`) is applied as a patch, never run.
    invocation = ap.parse_invocation(build_shell_argv(str(args.get("cmd", "")), None, True))
    if invocation is not None:
        return await apply_patch(ctx, call.call_id, invocation.patch, _patch_base(ctx, args, invocation))
    return await exec_command(ctx, call.call_id, args)


async def _write_stdin_tool(ctx: ToolContext, call: ToolCall) -> ToolOutput:
    return await write_stdin(ctx, call.call_id, call.arguments())


async def _update_plan_tool(ctx: ToolContext, call: ToolCall) -> ToolOutput:
    return await update_plan(ctx, call.call_id, call.arguments())


async def _apply_patch_tool(ctx: ToolContext, call: ToolCall) -> ToolOutput:
    return await apply_patch(ctx, call.call_id, str(call.arguments().get("input", "")))


def _patch_base(ctx: ToolContext, args: dict[str, Any], invocation: ap.PatchInvocation) -> Path:
    """`workdir`, then the script's `cd <dir>`, each relative to the one before (as the shell would)."""
    base = ctx.cwd
    workdir = args.get("workdir")
    if isinstance(workdir, str) and workdir:
        base = base / workdir
    if invocation.workdir:
        base = base / invocation.workdir
    return base.resolve()


BUILTIN_HEAD = (
    Tool("exec_command", specs.exec_command_spec(), _exec_tool, parallel=True),
    Tool("write_stdin", specs.write_stdin_spec(), _write_stdin_tool),
)
BUILTIN_TAIL = (
    Tool("apply_patch", specs.apply_patch_spec(), _apply_patch_tool, freeform=True),
    Tool("view_image", specs.view_image_spec(), view_image, parallel=True),
    # Codex 0.169.0 does not offer update_plan (default config, catalog or unknown model); a model
    # trained to call it anyway still gets its plan shown.
    Tool("update_plan", None, _update_plan_tool),
)
BUILTIN_TOOLS = BUILTIN_HEAD + BUILTIN_TAIL
"""The core's own tools, in the order they are offered; the collaboration mode's tool
(`request_user_input`) goes between the head and the tail, where Codex places it."""
