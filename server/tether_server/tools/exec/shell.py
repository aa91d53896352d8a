"""Turning a model's `cmd` string into argv, argv back into the wire `command` string, and commandActions.

`commandActions` (protocol.md §7.4) are a best-effort description for UIs: a command made only of
reads (`cat f`), listings (`ls d`) and searches (`rg q d`) is described item by item; anything else
(redirections, substitutions, unknown programs) is one `unknown` action carrying the whole command.
"""

from __future__ import annotations

import os
import pwd
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_KNOWN_SHELLS = ("bash", "zsh", "sh", "dash", "ksh", "fish")
_SEQUENCE_OPS = frozenset({"&&", "||", ";"})
# Anything that makes the command more than a plain list of programs; such commands stay `unknown`.
_COMPLEX_MARKERS = ("$(", "`", ">", "<", "\n", "&>", "<(")
_READERS = frozenset({"cat", "head", "tail", "less", "more", "bat", "batcat", "nl"})
_LISTERS = frozenset({"ls", "tree", "find", "fd", "fdfind", "exa", "eza"})
_SEARCHERS = frozenset({"rg", "grep", "egrep", "fgrep", "ag", "ack"})
# Pipeline stages that only reshape the first stage's output, so they do not change what it does.
_FORMATTERS = frozenset({"head", "tail", "wc", "sort", "uniq", "cut", "tr", "nl", "column", "cat"})
_SEARCH_VALUE_FLAGS = frozenset({"-e", "-f", "-g", "-t", "-T", "--type", "--glob", "-m", "-A", "-B", "-C"})
_FLAGS_WITH_VALUE = {
    "head": frozenset({"-n", "-c"}),
    "tail": frozenset({"-n", "-c"}),
    "rg": _SEARCH_VALUE_FLAGS,
    "grep": _SEARCH_VALUE_FLAGS,
    "egrep": _SEARCH_VALUE_FLAGS,
    "fgrep": _SEARCH_VALUE_FLAGS,
    "ag": _SEARCH_VALUE_FLAGS,
}


def default_shell() -> str:
    """The user's login shell when it is a POSIX-like shell, else bash, else sh."""
    try:
        candidate = pwd.getpwuid(os.getuid()).pw_shell
    except KeyError:
        candidate = os.environ.get("SHELL", "")
    if candidate and Path(candidate).name in _KNOWN_SHELLS and os.access(candidate, os.X_OK):
        return candidate
    return "/bin/bash" if os.access("/bin/bash", os.X_OK) else "/bin/sh"


def build_shell_argv(cmd: str, shell: str | None, login: bool) -> list[str]:
    """Wraps a script for execution by a shell (core.md §6.2 "command shell").

    Args:
        cmd: the script the model wrote.
        shell: the shell binary the model asked for; `None` means the user's default shell.
        login: whether to run it as a login shell (`-lc`) or not (`-c`).

    Returns:
        e.g. `["/bin/bash", "-lc", "echo hi"]`.
    """
    return [shell or default_shell(), "-lc" if login else "-c", cmd]


def join_command(argv: Sequence[str]) -> str:
    """Renders argv as one shell-quoted string, e.g. `/bin/bash -lc 'echo hi'` (protocol.md §7.4).

    Quotes like Rust's `shlex::try_join`, which Codex clients display: each word is cut into the
    longest runs that can stay bare, else go in single quotes, else in double quotes, so
    `echo 'hi'` renders as `"echo 'hi'"` rather than Python's `'echo '"'"'hi'"'"''`.
    """
    return " ".join(_quote_word(word) for word in argv)


_BARE_OK = frozenset("+-./:@]_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NOT_IN_SINGLE = frozenset("'\\^")
_NOT_IN_DOUBLE = frozenset("`$!^")
_BARE, _SINGLE, _DOUBLE = 1, 2, 4


def _quote_word(word: str) -> str:
    if not word:
        return "''"
    out: list[str] = []
    start = 0
    while start < len(word):
        end, style = _longest_run(word, start)
        chunk = word[start:end]
        if style == _BARE:
            out.append(chunk)
        elif style == _SINGLE:
            out.append(f"'{chunk}'")
        else:
            out.append('"' + chunk.replace("\\", "\\\\").replace('"', '\\"') + '"')
        start = end
    return "".join(out)


def _longest_run(word: str, start: int) -> tuple[int, int]:
    """The end of the longest run from `start` sharing one quoting style, and the best such style."""
    allowed = _BARE | _SINGLE | _DOUBLE
    end = start
    if word[start] == "^":  # bash mishandles a caret anywhere but right after an opening quote
        allowed, end = _SINGLE, start + 1
    while end < len(word):
        narrowed = allowed & _styles_for(word[end])
        if not narrowed:
            break
        allowed, end = narrowed, end + 1
    best = next(style for style in (_BARE, _SINGLE, _DOUBLE) if allowed & style)
    return end, best


def _styles_for(char: str) -> int:
    styles = 0
    if char in _BARE_OK:
        styles |= _BARE
    if char not in _NOT_IN_SINGLE:
        styles |= _SINGLE
    if char not in _NOT_IN_DOUBLE:
        styles |= _DOUBLE
    return styles


def parse_command_actions(cmd: str, cwd: Path | None = None) -> list[dict[str, Any]]:
    """Describes what a shell script does, for the `commandActions` field of a commandExecution item.

    Args:
        cmd: the script (not the wrapped argv).
        cwd: when given, relative paths in `read` actions are resolved against it.

    Returns:
        A list of `read` / `listFiles` / `search` actions, or a single `unknown` action.
    """
    unknown = [{"type": "unknown", "command": cmd}]
    segments = _split_segments(cmd)
    if segments is None:
        return unknown
    actions: list[dict[str, Any]] = []
    for argv in segments:
        if argv[0] == "cd":
            if len(argv) == 2 and cwd is not None:
                cwd = cwd / argv[1]
            continue
        action = _describe(argv, cwd)
        if action is None:
            return unknown
        actions.append(action)
    return actions or unknown


def _split_segments(cmd: str) -> list[list[str]] | None:
    """Splits on `&&`, `||`, `;` and pipes; `None` when the script is too complex to describe."""
    if any(marker in cmd for marker in _COMPLEX_MARKERS):
        return None
    try:
        lexer = shlex.shlex(cmd, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return None
    segments: list[list[str]] = []
    current: list[str] = []
    piped = False
    for token in [*tokens, ";"]:
        if token not in _SEQUENCE_OPS and token != "|":
            current.append(token)
            continue
        if not current:
            return None
        if not (piped and current[0] in _FORMATTERS and not _operands(current)):
            segments.append(current)
        piped, current = token == "|", []
    return segments


def _operands(argv: list[str]) -> list[str]:
    """Positional arguments, skipping flags and the values of flags known to take one."""
    value_flags = _FLAGS_WITH_VALUE.get(Path(argv[0]).name, frozenset())
    operands: list[str] = []
    skip = False
    for arg in argv[1:]:
        if skip:
            skip = False
        elif arg in value_flags:
            skip = True
        elif not arg.startswith("-") or arg == "-":
            operands.append(arg)
    return operands


def _describe(argv: list[str], cwd: Path | None) -> dict[str, Any] | None:
    program, command = Path(argv[0]).name, join_command(argv)
    operands = _operands(argv)
    if program == "sed" and len(argv) == 4 and argv[1] == "-n" and argv[2].endswith("p"):
        program, operands = "cat", [argv[3]]
    if program in _READERS and len(operands) == 1:
        path = Path(operands[0])
        full = cwd / path if cwd is not None and not path.is_absolute() else path
        return {"type": "read", "command": command, "name": path.name, "path": str(full)}
    if program in _LISTERS:
        return {"type": "listFiles", "command": command, "path": operands[0] if operands else None}
    if program in _SEARCHERS:
        query = operands[0] if operands else None
        where = operands[1] if len(operands) > 1 else None
        return {"type": "search", "command": command, "query": query, "path": where}
    return None
