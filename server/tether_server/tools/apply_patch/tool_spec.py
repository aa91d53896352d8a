"""The apply_patch tool definitions sent to the model (core.md §3.2, §4.1)."""

from __future__ import annotations

from typing import Any

LARK_GRAMMAR = (
    "start: begin_patch hunk+ end_patch\n"
    'begin_patch: "*** Begin Patch" LF\n'
    'end_patch: "*** End Patch" LF?\n'
    "\n"
    "hunk: add_hunk | delete_hunk | update_hunk\n"
    'add_hunk: "*** Add File: " filename LF add_line+\n'
    'delete_hunk: "*** Delete File: " filename LF\n'
    'update_hunk: "*** Update File: " filename LF change_move? change?\n'
    "\n"
    "filename: /(.+)/\n"
    'add_line: "+" /(.*)/ LF -> line\n'
    "\n"
    'change_move: "*** Move to: " filename LF\n'
    "change: (change_context | change_line)+ eof_line?\n"
    'change_context: ("@@" | "@@ " /(.+)/) LF\n'
    'change_line: ("+" | "-" | " ") /(.*)/ LF\n'
    'eof_line: "*** End of File" LF\n'
    "\n"
    "%import common.LF\n"
)

FREEFORM_DESCRIPTION = (
    "The `apply_patch` tool can be used to edit files. "
    "This is a FREEFORM tool, so do not wrap the patch in JSON."
)

# Our own wording of the prose grammar; the JSON variant is for models without freeform tools.
JSON_DESCRIPTION = """Edit files by applying a patch. The `input` is the whole patch:

*** Begin Patch
one or more file operations
*** End Patch

File operations:
*** Add File: <path>      followed by the new file's lines, each prefixed with "+"
*** Delete File: <path>   nothing follows
*** Update File: <path>   optionally followed by "*** Move to: <new path>", then one or more hunks

A hunk starts with "@@" (optionally "@@ <a line near the change, e.g. a class or def>") and lists
lines prefixed with " " (unchanged context), "-" (removed) or "+" (added). Show about 3 lines of
context above and below each change; add "@@ <class/def>" headers when the context is ambiguous.
End a hunk that must match the end of the file with "*** End of File".
Paths are relative to the working directory; never absolute."""


def freeform_tool() -> dict[str, Any]:
    """The `custom` tool with the Lark grammar, as sent in the Responses request `tools`."""
    return {
        "type": "custom",
        "name": "apply_patch",
        "description": FREEFORM_DESCRIPTION,
        "format": {"type": "grammar", "syntax": "lark", "definition": LARK_GRAMMAR},
    }


def json_tool() -> dict[str, Any]:
    """The `function` variant taking the patch as its `input` argument."""
    return {
        "type": "function",
        "name": "apply_patch",
        "description": JSON_DESCRIPTION,
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": {
                "input": {
                    "type": "string",
                    "description": "The entire contents of the apply_patch command",
                }
            },
            "required": ["input"],
            "additionalProperties": False,
        },
    }
