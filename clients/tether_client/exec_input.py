"""What `tether exec` sends as the turn's input: the prompt, piped context, images.

As `codex exec`: with no prompt argument (or `-`) the prompt is read from stdin; with a prompt
argument and a piped stdin, the piped text is appended as a `<stdin>` block. Unlike Codex, which
reads stdin to its end, a stdin that stays open without sending anything for `idle_s` seconds
(`TETHER_EXEC_STDIN_IDLE_SECONDS`, default 5) is given up on: exec goes on with what it has
instead of hanging. A terminal is read to its end (Ctrl-D) only when asked to with `-`.
"""

from __future__ import annotations

import base64
import mimetypes
import os
import select
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_IDLE_S = 5.0
_CHUNK = 64 * 1024


class InputError(Exception):
    """No usable prompt or a bad input file: reported, exit status 1."""


@dataclass(frozen=True)
class StdinText:
    """What was read from stdin, and whether its end was reached."""

    text: str
    complete: bool


def idle_seconds() -> float:
    """The stdin idle bound from the environment, or the default."""
    raw = os.environ.get("TETHER_EXEC_STDIN_IDLE_SECONDS", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_IDLE_S
    return value if value > 0 else DEFAULT_IDLE_S


def read_stdin(fd: int, idle_s: float | None) -> StdinText:
    """Read `fd` to its end, or until it sends nothing for `idle_s` seconds (None: no bound)."""
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([fd], [], [], idle_s)
        if not ready:
            return StdinText(_decode(chunks), complete=False)
        data = os.read(fd, _CHUNK)
        if not data:
            return StdinText(_decode(chunks), complete=True)
        chunks.append(data)


def _decode(chunks: list[bytes]) -> str:
    return b"".join(chunks).decode("utf-8", errors="replace")


def with_context(prompt: str, context: str) -> str:
    """The prompt with piped text appended as a `<stdin>` block (blank context adds nothing)."""
    if not context.strip():
        return prompt
    closing = "" if context.endswith("\n") else "\n"
    return f"{prompt}\n\n<stdin>\n{context}{closing}</stdin>"


def resolve_prompt(prompt: str | None, note: Any) -> str:
    """The turn's text from the prompt argument and stdin; `note` reports progress on stderr."""
    stdin = sys.stdin
    fd = stdin.fileno() if stdin is not None else -1
    is_tty = fd >= 0 and os.isatty(fd)
    if prompt is not None and prompt != "-":
        if fd < 0 or is_tty:
            return prompt
        note("Reading additional input from stdin...")
        piped = read_stdin(fd, idle_seconds())
        if not piped.complete:
            note(f"stdin sent nothing for {idle_seconds():g}s; going on without waiting for its end")
        return with_context(prompt, piped.text)
    if fd < 0 or (is_tty and prompt is None):
        raise InputError("No prompt provided. Pass it as an argument, or `-` to read it from stdin.")
    if prompt is None:
        note("Reading prompt from stdin...")
    piped = read_stdin(fd, None if is_tty else idle_seconds())
    if not piped.text.strip():
        raise InputError("No prompt provided via stdin.")
    return piped.text


def image_inputs(images: list[Path]) -> list[dict[str, Any]]:
    """`-i` files as `image` inputs carrying a data URL.

    exec reads the files itself, so the same command works against a daemon on another machine
    (`--remote`), which could not read them. A missing or unreadable file is an InputError.
    """
    inputs = []
    for image in images:
        path = image.expanduser()
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if not mime.startswith("image/"):
            raise InputError(f"image {image}: not an image file ({mime})")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"image {image}: {exc.strerror or exc}") from exc
        url = f"data:{mime};base64,{base64.b64encode(data).decode()}"
        inputs.append({"type": "image", "url": url})
    return inputs
