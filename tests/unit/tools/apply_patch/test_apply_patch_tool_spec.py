"""The tool definitions the model is offered."""

from __future__ import annotations

import json

from tether_server.tools.apply_patch import freeform_tool, json_tool

# The apply_patch entry of the `tools` array codex-cli 0.169.0 sent upstream.
RECORDED_FREEFORM_TOOL = json.loads(
    r"""{"type": "custom", "name": "apply_patch", "description": "The `apply_patch` tool can be used to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.", "format": {"type": "grammar", "syntax": "lark", "definition": "start: begin_patch hunk+ end_patch\nbegin_patch: \"*** Begin Patch\" LF\nend_patch: \"*** End Patch\" LF?\n\nhunk: add_hunk | delete_hunk | update_hunk\nadd_hunk: \"*** Add File: \" filename LF add_line+\ndelete_hunk: \"*** Delete File: \" filename LF\nupdate_hunk: \"*** Update File: \" filename LF change_move? change?\n\nfilename: /(.+)/\nadd_line: \"+\" /(.*)/ LF -> line\n\nchange_move: \"*** Move to: \" filename LF\nchange: (change_context | change_line)+ eof_line?\nchange_context: (\"@@\" | \"@@ \" /(.+)/) LF\nchange_line: (\"+\" | \"-\" | \" \") /(.*)/ LF\neof_line: \"*** End of File\" LF\n\n%import common.LF\n"}}"""  # noqa: E501
)


def test_freeform_tool_matches_the_recorded_request() -> None:
    assert freeform_tool() == RECORDED_FREEFORM_TOOL


def test_json_tool_takes_the_patch_as_required_input() -> None:
    tool = json_tool()
    assert tool["type"] == "function"
    assert tool["name"] == "apply_patch"
    assert tool["parameters"]["required"] == ["input"]
    assert tool["parameters"]["properties"]["input"]["type"] == "string"
