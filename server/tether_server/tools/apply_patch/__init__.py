"""The apply_patch engine: parse a patch, verify it against the disk, write it, describe it.

Typical use by the tool handler (`turn_before` is per turn; first snapshot of a path wins)::

    hunks = parse_patch(text)                        # PatchParseError
    if not hunks: ...                                # EMPTY_PATCH_TEXT
    boundary = PatchBoundary.for_turn(sandbox_policy, thread_cwd, env, private_paths)
    boundary.check_private(hunks, cwd)               # PatchRefusedError: never written, never read
    changes = plan_patch(hunks, cwd, None)           # PatchApplyError
    checked = boundary.check(changes)                # checked.escalations: ask or refuse per policy
    for path, text in read_snapshot(touched_paths(changes)).items():
        turn_before.setdefault(path, text)
    checked.apply()                                  # PatchApplyError (I/O, symlink met, after verification)
    output = summarize(changes)
    wire = changes_to_wire(changes, cwd)             # fileChange item `changes`
    diff = turn_diff(turn_before, read_snapshot(turn_before), cwd)

Verification errors reach the model as `verification_failed_text(err)`.
"""

from __future__ import annotations

from tether_server.tools.apply_patch.apply import apply_planned, plan_patch, read_regular
from tether_server.tools.apply_patch.boundary import CheckedPatch, Escalation, PatchBoundary
from tether_server.tools.apply_patch.diff import git_blob_oid, turn_diff, unified_diff
from tether_server.tools.apply_patch.invocation import (
    IMPLICIT_INVOCATION_TEXT,
    PatchInvocation,
    extract_patch_from_command,
    is_bare_patch,
    parse_invocation,
)
from tether_server.tools.apply_patch.matching import seek_sequence
from tether_server.tools.apply_patch.model import (
    AddFile,
    DeleteFile,
    Hunk,
    PatchApplyError,
    PatchError,
    PatchOutsideRootsError,
    PatchParseError,
    PatchRefusedError,
    PlannedChange,
    UpdateChunk,
    UpdateFile,
)
from tether_server.tools.apply_patch.parser import parse_patch
from tether_server.tools.apply_patch.report import changes_to_wire, summarize
from tether_server.tools.apply_patch.roots import OUTSIDE_ROOTS_REASON, is_writable
from tether_server.tools.apply_patch.snapshot import read_snapshot, touched_paths
from tether_server.tools.apply_patch.tool_spec import freeform_tool, json_tool

EMPTY_PATCH_TEXT = "patch rejected: empty patch"


def verification_failed_text(error: PatchError) -> str:
    """The text the model receives when a patch fails to parse or verify."""
    return f"apply_patch verification failed: {error}"


__all__ = [
    "EMPTY_PATCH_TEXT",
    "IMPLICIT_INVOCATION_TEXT",
    "OUTSIDE_ROOTS_REASON",
    "AddFile",
    "CheckedPatch",
    "DeleteFile",
    "Escalation",
    "Hunk",
    "PatchApplyError",
    "PatchBoundary",
    "PatchError",
    "PatchInvocation",
    "PatchOutsideRootsError",
    "PatchParseError",
    "PatchRefusedError",
    "PlannedChange",
    "UpdateChunk",
    "UpdateFile",
    "apply_planned",
    "changes_to_wire",
    "extract_patch_from_command",
    "freeform_tool",
    "git_blob_oid",
    "is_bare_patch",
    "is_writable",
    "json_tool",
    "parse_invocation",
    "parse_patch",
    "plan_patch",
    "read_regular",
    "read_snapshot",
    "seek_sequence",
    "summarize",
    "touched_paths",
    "turn_diff",
    "unified_diff",
    "verification_failed_text",
]
