"""`feedback/save` and `feedback/upload`: a bug report bundle.

`feedback/save` writes the ZIP Codex writes (`report.json` and `manifest.json`) to a new absolute
path the caller owns: written beside it under a temporary name, then linked into place, so an
existing file is never replaced and a failed save leaves nothing at the path. Tether has no
feedback endpoint: `feedback/upload` fails as Codex fails when its hosted endpoint is unreachable.
The report holds what the caller sent and the daemon's version; no config, key or log.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
import uuid
import zipfile
from pathlib import Path

from tether_protocol.v2 import feedback as fb
from tether_server.core.ids import uuid7
from tether_server.errors import InternalError, InvalidRequest
from tether_server.processor.state import ServerState
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext

SAVE_FAILED = "failed to save feedback: {}"
UPLOAD_FAILED = "failed to upload feedback: no feedback endpoint is configured; Tether sends feedback nowhere"


def _thread_id(params: fb.FeedbackUploadParams) -> str:
    if params.thread_id is None:
        return f"no-active-thread-{uuid7()}"
    check_thread_id(params.thread_id)
    return params.thread_id


def report(state: ServerState, params: fb.FeedbackUploadParams, thread_id: str) -> dict[str, object]:
    """The bundle's `report.json`, in the shape of Codex's."""
    title = f"[{params.classification.replace('_', ' ').capitalize()}]: Tether session {thread_id}"
    tags = {**(params.tags or {}), "classification": params.classification}
    tags |= {"cli_version": state.version, "session_source": state.originator or "unknown"}
    tags["thread_id"] = thread_id
    body: dict[str, object] = {"event_id": uuid.uuid4().hex, "message": title, "timestamp": time.time()}
    if params.reason is not None:
        tags["reason"] = params.reason
        body["exception"] = {"values": [{"type": title, "value": params.reason}]}
    body["tags"] = dict(sorted(tags.items()))
    return body


def _write(path: Path, content: dict[str, object]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as bundle:
            bundle.writestr("report.json", json.dumps(content, separators=(",", ":")))
            bundle.writestr("manifest.json", "[]")
        # A link does not replace an existing file, unlike a rename: the caller's path stays theirs.
        os.link(tmp, path)
    finally:
        os.unlink(tmp)


async def save(
    state: ServerState, ctx: RequestContext, params: fb.FeedbackSaveParams
) -> fb.FeedbackSaveResponse:
    path = Path(params.save_path)
    if not path.is_absolute():
        raise InvalidRequest("feedback savePath must be an absolute host path")
    thread_id = _thread_id(params)
    try:
        await asyncio.to_thread(_write, path, report(state, params, thread_id))
    except FileExistsError:
        raise InternalError(SAVE_FAILED.format("feedback save path already exists")) from None
    except OSError as exc:
        where = f' at path "{exc.filename}"' if exc.filename else ""
        raise InternalError(SAVE_FAILED.format(f"{exc.strerror} (os error {exc.errno}){where}")) from None
    return fb.FeedbackSaveResponse(saved_path=str(path), thread_id=thread_id, prompt_hash=None)


async def upload(
    state: ServerState, ctx: RequestContext, params: fb.FeedbackUploadParams
) -> fb.FeedbackUploadResponse:
    _thread_id(params)
    raise InternalError(UPLOAD_FAILED)
