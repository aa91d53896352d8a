"""The tool definitions sent to the model. Order and key order are fixed so the request prefix
stays byte-stable across turns (prompt caching)."""

from __future__ import annotations

from typing import Any

# The grammar is a fact of the protocol shared with Codex-trained models, not prose.
APPLY_PATCH_GRAMMAR = r"""start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
"""

_APPROVAL_PROPS: dict[str, Any] = {
    "justification": {
        "type": "string",
        "description": "Only with sandbox_permissions=require_escalated: one sentence telling the user why.",
    },
    "prefix_rule": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Optional argv prefix the user may approve for the rest of the session.",
    },
    "sandbox_permissions": {
        "type": "string",
        "description": '"use_default" (the default) runs in the sandbox; "require_escalated" asks to run '
        "outside it.",
        "enum": ["use_default", "require_escalated"],
    },
}


def function_tool(
    name: str,
    description: str,
    properties: dict[str, Any],
    required: list[str] | None,
    *,
    defer_loading: bool = False,
) -> dict[str, Any]:
    """A function tool in Codex's key order: properties as given, `required` only when given, and
    `defer_loading` for a tool found through `tool_search`."""
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        parameters["required"] = required
    parameters["additionalProperties"] = False
    spec: dict[str, Any] = {"type": "function", "name": name, "description": description, "strict": False}
    if defer_loading:
        spec["defer_loading"] = True
    spec["parameters"] = parameters
    return spec


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return function_tool(name, description, dict(sorted(properties.items())), required)


def exec_command_spec() -> dict[str, Any]:
    props: dict[str, Any] = {
        "cmd": {"type": "string", "description": "Shell command to run."},
        "workdir": {"type": "string", "description": "Working directory; defaults to the turn's cwd."},
        "shell": {"type": "string", "description": "Shell binary to launch; defaults to the user's shell."},
        "login": {"type": "boolean", "description": "Run the shell as a login shell (default true)."},
        "tty": {
            "type": "boolean",
            "description": "Allocate a PTY, for interactive programs (default false).",
        },
        "yield_time_ms": {"type": "number", "description": "How long to wait for output before returning."},
        "max_output_tokens": {"type": "number", "description": "Cap on the output returned to you."},
        **_APPROVAL_PROPS,
    }
    return _function(
        "exec_command",
        "Runs a command in a PTY, returning its output, or a session ID when it is still running.",
        props,
        ["cmd"],
    )


def write_stdin_spec() -> dict[str, Any]:
    props: dict[str, Any] = {
        "session_id": {"type": "number", "description": "Session ID returned by exec_command."},
        "chars": {"type": "string", "description": "Characters to write; empty to just poll for output."},
        "yield_time_ms": {"type": "number", "description": "How long to wait for output before returning."},
        "max_output_tokens": {"type": "number", "description": "Cap on the output returned to you."},
    }
    return _function(
        "write_stdin",
        "Writes characters to a running exec_command session and returns its recent output.",
        props,
        ["session_id"],
    )


def update_plan_spec() -> dict[str, Any]:
    step = {
        "type": "object",
        "properties": {
            "status": {"type": "string", "description": "One of: pending, in_progress, completed"},
            "step": {"type": "string"},
        },
        "required": ["step", "status"],
        "additionalProperties": False,
    }
    props: dict[str, Any] = {
        "explanation": {"type": "string"},
        "plan": {"type": "array", "items": step, "description": "The steps, in order."},
    }
    return _function(
        "update_plan",
        "Updates the task plan: an optional explanation and the list of steps with their status.\n"
        "Keep at most one step in_progress.\n",
        props,
        ["plan"],
    )


def apply_patch_spec() -> dict[str, Any]:
    return {
        "type": "custom",
        "name": "apply_patch",
        "description": "Edit files with a patch in the apply_patch format. This is a FREEFORM tool: send the "
        "patch text itself, not JSON.",
        "format": {"type": "grammar", "syntax": "lark", "definition": APPLY_PATCH_GRAMMAR},
    }


def view_image_spec() -> dict[str, Any]:
    # Name and parameters as Codex 0.169.0 offers them: models trained on Codex call it so.
    props: dict[str, Any] = {
        "path": {
            "type": "string",
            "description": "The image file: relative to the project, or absolute.",
        }
    }
    return _function(
        "view_image",
        "Looks at an image file in the project (PNG, JPEG, GIF or WebP): the image is attached to your next "
        "input. Use it when you need to see a screenshot, diagram or picture that is already on disk.",
        props,
        ["path"],
    )
