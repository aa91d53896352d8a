"""The tools a turn offers the model, and the one way a call reaches the tool that runs it.

A `Tool` is its definition (what the request carries), whether it may run beside other calls,
and its `run`. A `ToolSource` offers tools by name: the built-in ones (`builtin_tools`), the
MCP servers' and the client's dynamic tools (`external_tools`) all register the same way, so a
new tool is one `Tool(...)` in one source, not a branch in a dispatcher. The registry keeps two
orders: the order definitions are sent in (fixed, so the request prefix stays byte-stable) and
the order a name is looked up in.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tether_server import metrics, telemetry
from tether_server.core import items
from tether_server.core.approval import Ask
from tether_server.core.execpolicy import ExecRules
from tether_server.core.hooks import TurnHooks
from tether_server.core.ports import EventSink
from tether_server.core.shell_snapshot import ShellSnapshots
from tether_server.sandbox.runner import PreparedCommand
from tether_server.tools.exec.sessions import ProcessSessions

CommandGate = Callable[[dict[str, Any], Path, Path, list[str], bool], PreparedCommand]
"""(sandbox policy, policy cwd, workdir, argv, sandboxed) → the command to spawn; raises SandboxError
when it cannot. Only the policy cwd (the turn's) is a writable root; the workdir is where it starts."""


@dataclass
class ToolOutput:
    text: str
    success: bool = True
    content: list[dict[str, Any]] | None = None
    """Content items (`input_image`...) the model gets instead of `text`, as a list output."""
    context: tuple[str, ...] = ()
    """Hooks' context for the model, recorded just before the call's output."""


class ToolArgumentError(Exception):
    """The model's arguments do not fit the tool: told to the model as the call's output."""


@dataclass(frozen=True)
class ToolCall:
    """One call item of the model's response, as a tool receives it."""

    call_id: str
    name: str
    freeform: bool
    """A `custom_tool_call` (its `input` is the text itself) rather than a `function_call` (JSON)."""
    raw: str
    """The arguments as the model sent them: JSON text, or the freeform input."""

    def arguments(self) -> dict[str, Any]:
        """The JSON object of a function call's arguments (a freeform call's input as `input`)."""
        if self.freeform:
            return {"input": self.raw}
        return parse_arguments(self.raw)


def parse_arguments(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        raise ToolArgumentError(f"failed to parse function arguments: {exc}") from None
    if not isinstance(value, dict):
        raise ToolArgumentError("failed to parse function arguments: expected a JSON object")
    return value


ToolRun = Callable[["ToolContext", ToolCall], Awaitable[ToolOutput]]


@dataclass(frozen=True)
class Tool:
    name: str
    spec: dict[str, Any] | None
    """The definition sent to the model; None for a tool that is only looked up (never offered)."""
    run: ToolRun
    parallel: bool = False
    """May run while other parallel calls of the same response run (otherwise it waits its turn)."""
    freeform: bool = False
    """Called as a `custom_tool_call`; a function call of the same name is taken too."""
    offered_by: str | None = None
    """The offered tool that makes this one known without its own definition (`tool_search`)."""


class ToolSource(Protocol):
    """Where tools come from: definitions to send, and the tool behind a name."""

    def specs(self) -> list[dict[str, Any]]: ...

    def find(self, name: str) -> Tool | None: ...


class StaticTools:
    """A fixed set of tools, offered in the order given."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = {tool.name: tool for tool in tools}
        self._specs = [tool.spec for tool in tools if tool.spec is not None]

    def specs(self) -> list[dict[str, Any]]:
        return list(self._specs)

    def find(self, name: str) -> Tool | None:
        return self._tools.get(name)


class ToolRegistry:
    """The tools of one turn: `offered` fixes the definitions' order, `lookup` which source answers
    a name first (the built-in tools, then the client's, then the MCP servers')."""

    def __init__(self, offered: Sequence[ToolSource], lookup: Sequence[ToolSource] | None = None) -> None:
        self._offered = list(offered)
        self._lookup = list(lookup if lookup is not None else offered)
        self._offered_names: set[str] = set()

    def specs(self) -> list[dict[str, Any]]:
        specs = [spec for source in self._offered for spec in source.specs()]
        # A hosted or client-run tool (`tool_search`) is named by its type.
        self._offered_names.update(str(spec.get("name", spec.get("type"))) for spec in specs)
        return specs

    def metric_label(self, name: str) -> str:
        """`name` if this turn offered the tool (directly or through the tool that finds it), else
        `other`: the model can call any name, and each label value is a series kept for good."""
        if name in self._offered_names:
            return name
        tool = self.find(name)
        if tool is not None and tool.offered_by is not None and tool.offered_by in self._offered_names:
            return name
        return "other"

    def find(self, name: str) -> Tool | None:
        for source in self._lookup:
            tool = source.find(name)
            if tool is not None:
                return tool
        return None

    def parallel(self, call: Mapping[str, Any]) -> bool:
        tool = self.find(call_name(call))
        return tool is not None and tool.parallel and call.get("type") in ("function_call", SEARCH_CALL)


@dataclass
class ToolContext:
    """What a tool call runs with: the turn's identity, policies, services and registry."""

    thread_id: str
    turn_id: str
    cwd: Path
    sandbox_policy: dict[str, Any]
    sink: EventSink
    processes: ProcessSessions
    env: Mapping[str, str]
    gate: CommandGate
    record_item: Callable[[items.ThreadItem], None]
    registry: ToolRegistry
    """The turn's tools: what the model is offered and what runs its calls."""
    approval_policy: Any = "on-request"
    ask: Ask | None = None
    set_flags: Callable[[list[str]], Awaitable[None]] | None = None
    approved_for_session: set[str] = field(default_factory=set)
    turn_files_before: dict[Path, str | None] = field(default_factory=dict)
    session_items: dict[int, str] = field(default_factory=dict)
    exec_rules: ExecRules | None = None
    allow_login_shell: bool = True
    shell_snapshots: ShellSnapshots | None = None
    """The daemon's login-shell snapshots (None: `features.shell_snapshot` off, or no login shell)."""
    # Never written by a patch, even when approved (the daemon's home, sockets, tokens).
    private_paths: tuple[Path, ...] = ()
    # Hidden from commands but not the daemon's (credential stores): a patch there needs approval.
    hidden_paths: tuple[Path, ...] = ()
    hooks: TurnHooks | None = None
    """The turn's PreToolUse / PostToolUse hooks (None: none configured)."""
    no_environment: bool = False
    """The turn has no environment (`environments: []`): the tools in `NEEDS_ENVIRONMENT` do not run."""
    item_id_for: Callable[[str], str] = str
    """A model call id → the id of the call's item, unique in the thread (`ThreadRecorder.tool_item_id`)."""


SEARCH_CALL = "tool_search_call"


def call_name(call: Mapping[str, Any]) -> str:
    """The name a call item is looked up by: a namespaced function (`namespace` + `name`, how a model
    calls a tool `tool_search` found) is `<namespace>__<name>`; a search call is `tool_search`."""
    if call.get("type") == SEARCH_CALL:
        return "tool_search"
    name, namespace = str(call.get("name", "")), call.get("namespace")
    return f"{namespace}__{name}" if isinstance(namespace, str) and namespace else name


async def dispatch(ctx: ToolContext, call: Mapping[str, Any]) -> dict[str, Any]:
    """Run one call item (`function_call` / `custom_tool_call` / `tool_search_call`); returns its
    output history item."""
    freeform = call.get("type") == "custom_tool_call"
    raw = call.get("input") if freeform else call.get("arguments")
    if call.get("type") == SEARCH_CALL:
        # Its arguments come as a JSON object, not as JSON text.
        raw = json.dumps(raw if isinstance(raw, dict) else {})
    # The tool sees the item's id (its items, approvals and server requests carry it); the output
    # goes back under the model's own call id.
    call_id = str(call.get("call_id", ""))
    request = ToolCall(ctx.item_id_for(call_id), call_name(call), freeform, str(raw or ""))
    out_type = "custom_tool_call_output" if freeform else "function_call_output"
    with (
        telemetry.span("tool.call", {"gen_ai.tool.name": request.name}) as span,
        metrics.tool_call(ctx.registry.metric_label(request.name)) as timed,
    ):
        try:
            output = _unavailable(ctx, request) or await _run_hooked(ctx, request)
        except ToolArgumentError as exc:
            output = ToolOutput(str(exc), success=False)
        timed.outcome = "ok" if output.success else "failed"
        span.set({"tether.tool.success": output.success})
    if call.get("type") == SEARCH_CALL:
        found = output.content if output.success and output.content is not None else []
        return {
            "type": "tool_search_output",
            "call_id": call_id,
            "status": "completed",
            "execution": "client",
            "tools": found,
        }
    model_output: str | list[dict[str, Any]] = output.text if output.content is None else output.content
    if output.context:
        return {
            "type": out_type,
            "call_id": call_id,
            "output": model_output,
            CONTEXT_BEFORE: [
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": t}]}
                for t in output.context
            ],
        }
    return {"type": out_type, "call_id": call_id, "output": model_output}


CONTEXT_BEFORE = "tether_context_before"
"""Key of an output item's history entries to record before it (taken off by the turn)."""


def _hook_subject(call: ToolCall) -> tuple[str, dict[str, Any]] | None:
    """(tool_name, tool_input) a hook sees for a call, as Codex names them; None: no hook applies."""
    if call.name == "exec_command" and not call.freeform:
        cmd = parse_arguments(call.raw).get("cmd")
        return ("Bash", {"command": cmd}) if isinstance(cmd, str) else None
    if call.name == "apply_patch":
        patch = call.raw if call.freeform else parse_arguments(call.raw).get("input")
        return ("apply_patch", {"command": patch}) if isinstance(patch, str) else None
    return None


async def _run_hooked(ctx: ToolContext, call: ToolCall) -> ToolOutput:
    """The call between its PreToolUse hooks (which may block it: it then never runs, and the
    model is told why) and its PostToolUse hooks."""
    hooks = ctx.hooks
    subject = _hook_subject(call) if hooks is not None else None
    if hooks is None or subject is None:
        return await _run(ctx, call)
    name, tool_input = subject
    fields = {"tool_name": name, "tool_input": tool_input, "tool_use_id": call.call_id}
    pre = await hooks.run("PreToolUse", fields, name, call.call_id)
    if pre.block_reason is not None:
        text = f"Command blocked by PreToolUse hook: {pre.block_reason}. Command: {tool_input['command']}"
        return ToolOutput(text, success=False)
    output = await _run(ctx, call)
    post = await hooks.run("PostToolUse", {**fields, "tool_response": output.text}, name, call.call_id)
    if post.block_reason is not None:
        # The model reads the hook's reason in place of what the tool returned.
        output = ToolOutput(post.block_reason, success=False)
    output.context = tuple(post.contexts)
    return output


NEEDS_ENVIRONMENT = frozenset({"exec_command", "write_stdin", "apply_patch", "view_image"})
NO_ENVIRONMENT = (
    "No usable execution environment is available. "
    "Wait for an environment to become available before using this tool."
)
"""Codex 0.169.0's answer to such a call in a turn without an environment (no item is shown)."""


def _unavailable(ctx: ToolContext, call: ToolCall) -> ToolOutput | None:
    if ctx.no_environment and call.name in NEEDS_ENVIRONMENT:
        return ToolOutput(NO_ENVIRONMENT, success=False)
    return None


async def _run(ctx: ToolContext, call: ToolCall) -> ToolOutput:
    tool = ctx.registry.find(call.name)
    if call.freeform and (tool is None or not tool.freeform):
        return ToolOutput(f"unsupported custom tool call: {call.name}", success=False)
    if tool is None:
        return ToolOutput(f"unsupported call: {call.name}", success=False)
    return await tool.run(ctx, call)
