"""feedback/save and feedback/upload, as Codex 0.169.0 answers them.

Observed on the real binary:
- save to a new absolute path: `{"savedPath": <path>, "threadId": "no-active-thread-<uuid>",
  "promptHash": null}` (the given `threadId` when one is sent, even one it does not know); a ZIP
  of mode 0600 holding `report.json` (event id, "[Bug]: Codex session <thread>", timestamp, tags:
  the caller's, classification, version, thread id, reason) and `manifest.json` (`[]`).
- a relative path: -32600 "feedback savePath must be an absolute host path"; an existing file:
  -32603 "failed to save feedback: feedback save path already exists" (the file kept); a missing
  folder: -32603 "failed to save feedback: No such file or directory (os error 2) at path
  \"<folder>/.tmp…\""; a thread id that is not a UUID: -32600 "invalid thread id: …".
- upload, without its hosted endpoint: -32603 "failed to upload feedback: …".
"""

from __future__ import annotations

import json
import stat
import zipfile
from pathlib import Path

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcErrorReply

KEY = "sk-feedback-0123456789abcdef"


async def test_save_writes_a_private_bundle_with_what_was_sent_and_no_secret(
    start_app: StartApp, tmp_path: Path
) -> None:
    server = await start_app(env={"OPENAI_API_KEY": KEY})
    target = tmp_path / "report.zip"
    params = {"classification": "bug", "savePath": str(target), "reason": "it broke", "tags": {"a": "b"}}
    answer = await server.request("feedback/save", {**params, "includeLogs": True})
    named = await server.request(
        "feedback/save",
        {"classification": "bad_result", "savePath": str(tmp_path / "two.zip"), "threadId": "0" * 32},
    )

    assert answer["savedPath"] == str(target) and answer["promptHash"] is None
    assert answer["threadId"].startswith("no-active-thread-")
    assert named["threadId"] == "0" * 32
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    with zipfile.ZipFile(target) as bundle:
        assert sorted(bundle.namelist()) == ["manifest.json", "report.json"]
        report = json.loads(bundle.read("report.json"))
        assert json.loads(bundle.read("manifest.json")) == []
        everything = b"".join(bundle.read(name) for name in bundle.namelist())
    assert report["message"] == f"[Bug]: Tether session {answer['threadId']}"
    assert report["tags"]["a"] == "b" and report["tags"]["reason"] == "it broke"
    assert report["tags"]["classification"] == "bug" and report["tags"]["thread_id"] == answer["threadId"]
    assert KEY.encode() not in everything
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp")) == []


async def test_bad_save_requests_get_codexs_errors_and_leave_the_path_alone(
    start_app: StartApp, tmp_path: Path
) -> None:
    server = await start_app()
    existing = tmp_path / "mine.zip"
    existing.write_bytes(b"the caller's")
    cases = [
        ({"savePath": "relative.zip"}, -32600, "feedback savePath must be an absolute host path"),
        ({"savePath": str(existing)}, -32603, "failed to save feedback: feedback save path already exists"),
        (
            {"savePath": str(tmp_path / "new.zip"), "threadId": "nope"},
            -32600,
            "invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` "
            "followed by [0-9a-fA-F-], found `n` at 1",
        ),
    ]
    for extra, code, message in cases:
        with pytest.raises(RpcErrorReply) as caught:
            await server.request("feedback/save", {"classification": "bug", **extra})
        assert (caught.value.code, caught.value.message) == (code, message)
    with pytest.raises(RpcErrorReply) as missing:
        await server.request(
            "feedback/save", {"classification": "bug", "savePath": str(tmp_path / "no" / "x.zip")}
        )

    assert missing.value.code == -32603
    assert missing.value.message.startswith(
        f'failed to save feedback: No such file or directory (os error 2) at path "{tmp_path / "no"}/.tmp'
    )
    assert existing.read_bytes() == b"the caller's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "mine.zip"]


async def test_upload_fails_as_codex_does_without_its_endpoint(start_app: StartApp) -> None:
    server = await start_app()
    with pytest.raises(RpcErrorReply) as caught:
        await server.request("feedback/upload", {"classification": "bug", "includeLogs": True})
    assert caught.value.code == -32603
    assert caught.value.message.startswith("failed to upload feedback: ")
