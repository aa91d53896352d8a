"""Recognising a shell call that is really `apply_patch` (core.md §4.5), so it is applied in-process."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from tether_server.tools.apply_patch.model import PatchParseError
from tether_server.tools.apply_patch.parser import parse_patch

PATCH_COMMANDS = frozenset({"apply_patch", "applypatch"})
_SHELLS = frozenset({"bash", "zsh", "sh"})
_SHELL_FLAGS = frozenset({"-c", "-lc"})
IMPLICIT_INVOCATION_TEXT = (
    'patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]'
)
_HEREDOC_SCRIPT = re.compile(
    r"""\A(?:cd[ \t]+(?P<dir>'[^']*'|"[^"]*"|[^\s;&|<>]+)[ \t]*&&[ \t]*)?
        (?:apply_patch|applypatch)[ \t]+<<[ \t]*(?P<quote>['"]?)(?P<delim>\w+)(?P=quote)[ \t]*\n
        (?P<body>.*?)\n?
        ^(?P=delim)[ \t]*\Z""",
    re.DOTALL | re.MULTILINE | re.VERBOSE,
)


@dataclass(frozen=True)
class PatchInvocation:
    """A recognised apply_patch call: the patch text and the `cd` directory, if any."""

    patch: str
    workdir: str | None = None


def _shell_script(argv: Sequence[str]) -> str | None:
    if len(argv) == 3 and PurePath(argv[0]).stem.lower() in _SHELLS and argv[1] in _SHELL_FLAGS:
        return argv[2]
    return None


def parse_invocation(argv: Sequence[str]) -> PatchInvocation | None:
    """Recognise `["apply_patch", patch]` or a `bash -lc` heredoc script calling apply_patch.

    The script must be exactly `apply_patch <<'EOF' … EOF`, optionally preceded by
    `cd <dir> && `; the relative `workdir` resolves against the call's working directory.
    """
    if len(argv) == 2 and argv[0] in PATCH_COMMANDS:
        return PatchInvocation(argv[1])
    script = _shell_script(argv)
    if script is None:
        return None
    match = _HEREDOC_SCRIPT.match(script.strip())
    if match is None:
        return None
    directory = match.group("dir")
    workdir = shlex.split(directory)[0] if directory else None
    return PatchInvocation(match.group("body").rstrip("\n"), workdir)


def extract_patch_from_command(argv: Sequence[str]) -> str | None:
    """The patch text if `argv` is an apply_patch invocation (see `parse_invocation`), else None."""
    invocation = parse_invocation(argv)
    return None if invocation is None else invocation.patch


def is_bare_patch(argv: Sequence[str]) -> bool:
    """True when the command (or shell script) is a patch with no apply_patch call in front of it.

    The caller answers such calls with `IMPLICIT_INVOCATION_TEXT` instead of running them.
    """
    script = _shell_script(argv)
    text = script if script is not None else (argv[0] if len(argv) == 1 else None)
    if text is None:
        return False
    try:
        parse_patch(text)
    except PatchParseError:
        return False
    return True
