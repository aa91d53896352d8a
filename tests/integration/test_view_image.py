"""`view_image` as Codex 0.169.0 offers it: the model names an image file, an `imageView` item is
shown, and the next model request carries the image as an `input_image` data URL. The path is the
model's (or a cloned repository's) choice, so what is not a plain image file inside the project is
refused with an output saying why, and nothing of it reaches the model."""

from __future__ import annotations

import base64
import os
import struct
import zlib
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2)))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


async def _turn_with_view(start_app: StartApp, fake: FakeResponsesServer, workdir: Path, path: str) -> Any:
    fake.add(
        script.reply(script.function_call("view_image", {"path": path}, "call_view")),
        script.text_reply("seen"),
    )
    server = await start_app()
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    mark = server.mark()
    await server.request(
        "turn/start", {"threadId": thread["thread"]["id"], "input": [{"type": "text", "text": "look"}]}
    )
    await server.notification("turn/completed", after=mark)
    output = next(
        item["output"]
        for item in fake.requests[-1].body["input"]
        if item.get("call_id") == "call_view" and item["type"] == "function_call_output"
    )
    shown = [
        m["params"]["item"]
        for m in server.since(mark)
        if m.get("method") in ("item/started", "item/completed")
    ]
    views = [item for item in shown if item["type"] == "imageView"]
    return output, views


async def test_view_image_is_offered_with_codexs_name_and_parameters(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    (workdir / "red.png").write_bytes(_png())
    await _turn_with_view(start_app, fake_model, workdir, "red.png")
    spec = next(t for t in fake_model.requests[0].body["tools"] if t.get("name") == "view_image")
    assert spec["type"] == "function" and spec["strict"] is False
    parameters = spec["parameters"]
    assert parameters["required"] == ["path"] and parameters["additionalProperties"] is False
    assert list(parameters["properties"]) == ["path"] and parameters["properties"]["path"]["type"] == "string"


async def test_the_next_request_carries_the_image_and_an_image_view_item_is_shown(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    (workdir / "shots").mkdir()
    (workdir / "shots" / "red.png").write_bytes(_png())
    output, views = await _turn_with_view(start_app, fake_model, workdir, "shots/red.png")
    url = "data:image/png;base64," + base64.b64encode(_png()).decode()
    assert output == [{"type": "input_image", "image_url": url, "detail": "original"}]
    assert [v["path"] for v in views] == [str(workdir / "shots" / "red.png")] * 2
    assert {v["id"] for v in views} == {"call_view"}


async def test_a_path_outside_the_project_is_refused(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    (tmp_path / "outside.png").write_bytes(_png())
    output, views = await _turn_with_view(start_app, fake_model, workdir, str(tmp_path / "outside.png"))
    assert isinstance(output, str) and "is not read: outside" in output
    assert views == []


async def test_a_symlink_out_of_the_project_is_refused(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret.png").write_bytes(_png())
    (workdir / "link.png").symlink_to(tmp_path / "secret.png")
    (workdir / "linked_dir").symlink_to(tmp_path)
    output, views = await _turn_with_view(start_app, fake_model, workdir, "link.png")
    assert output == "view_image: link.png is not read: a symbolic link"
    assert views == []
    output, views = await _turn_with_view(start_app, fake_model, workdir, "linked_dir/secret.png")
    assert isinstance(output, str) and "is not read: outside" in output
    assert views == []


async def test_a_fifo_is_refused_without_blocking_the_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    os.mkfifo(workdir / "pipe.png")
    output, views = await _turn_with_view(start_app, fake_model, workdir, "pipe.png")
    assert output == "view_image: pipe.png is not read: not a regular file"
    assert views == []


async def test_a_file_that_is_not_an_image_is_refused(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    (workdir / "notes.png").write_text("API_KEY=not-an-image\n")
    output, views = await _turn_with_view(start_app, fake_model, workdir, "notes.png")
    assert output == "view_image: notes.png is not a PNG, JPEG, GIF or WebP image"
    assert views == []
    output, views = await _turn_with_view(start_app, fake_model, workdir, "missing.png")
    assert output == "view_image: missing.png: no such file"
