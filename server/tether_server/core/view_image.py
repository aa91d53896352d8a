"""`view_image`: the model names an image file and its next request carries it as an `input_image`.

The path is the model's choice and the project is writable by whoever the model or a cloned
repository is, so the file is read by the rules of `safe_read` (no symlink, regular files only,
inside the project, never the daemon's private paths, a size cap, off the event loop) and only a
known image format is sent: a FIFO would block the read, a symlink to `~/.ssh/id_ed25519` or a
text file renamed `.png` would hand the provider something that is not an image the user showed.
"""

from __future__ import annotations

import base64
import functools
import os
from pathlib import Path

from tether_server import safe_read
from tether_server.core import events as ev
from tether_server.core import items
from tether_server.core.ids import now_ms
from tether_server.core.toolbox import ToolArgumentError, ToolCall, ToolContext, ToolOutput

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""The Responses API's own limit for one image input."""

# The detail Codex 0.169.0 asks for with gpt-5.5: the image as it is, not downscaled.
DETAIL = "original"

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def media_type(data: bytes) -> str | None:
    """The image format the bytes start with, by signature (never by the file's name)."""
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


async def view_image(ctx: ToolContext, call: ToolCall) -> ToolOutput:
    raw = call.arguments().get("path")
    if not isinstance(raw, str) or not raw.strip():
        raise ToolArgumentError("failed to parse function arguments: missing field `path`")
    path = _lexical(ctx.cwd / raw)
    private = (*ctx.private_paths, *ctx.hidden_paths)
    read = functools.partial(safe_read.read_prefix, root=ctx.cwd, private=private)
    try:
        data = await safe_read.off_loop(read, path, MAX_IMAGE_BYTES + 1)
    except FileNotFoundError:
        return ToolOutput(f"view_image: {raw}: no such file", success=False)
    except safe_read.Refused as exc:
        return ToolOutput(f"view_image: {raw} is not read: {exc}", success=False)
    except TimeoutError:
        return ToolOutput(f"view_image: {raw} could not be read in time", success=False)
    except OSError as exc:
        return ToolOutput(f"view_image: {raw} could not be read: {exc.strerror or exc}", success=False)
    if len(data) > MAX_IMAGE_BYTES:
        return ToolOutput(f"view_image: {raw} is larger than {MAX_IMAGE_BYTES} bytes", success=False)
    kind = media_type(data)
    if kind is None:
        return ToolOutput(f"view_image: {raw} is not a PNG, JPEG, GIF or WebP image", success=False)
    item = items.ImageView(call.call_id, str(path), now_ms())
    await ctx.sink.emit(ev.ItemStarted(ctx.thread_id, ctx.turn_id, item))
    item.completed_at_ms = now_ms()
    ctx.record_item(item)
    await ctx.sink.emit(ev.ItemCompleted(ctx.thread_id, ctx.turn_id, item))
    url = f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"
    return ToolOutput(f"[image {raw}]", content=[{"type": "input_image", "image_url": url, "detail": DETAIL}])


def _lexical(path: Path) -> Path:
    # Not resolved: a final symlink must be seen as one, and the read checks where the file really is.
    return Path(os.path.normpath(path))
