"""The official TypeScript SDK's event stream from `tether exec`, event for event against what the
same SDK read from Codex 0.169.0 (`codex_sdk_events.json`) for the same turns and the same fake model.

The SDK runs with the options its own tests give Codex (`feedback.enabled`, `analytics.enabled`,
`check_for_update_on_startup`, a feature flag) and a mock Responses provider; neither side may
add an event (an unknown key used to become an `error` item).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.exec_run import EXEC_WAIT_S, git_repo
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

STREAM_SCRIPT = Path(__file__).parent / "node" / "sdk_stream.mjs"
FACTS = json.loads((Path(__file__).parent / "codex_sdk_events.json").read_text())
SDK_PREFIX = Path(os.environ.get("TETHER_NODE_PREFIX", Path.home() / ".cache" / "tether-test-node"))
SDK_ENTRY = SDK_PREFIX / "node_modules" / "@openai" / "codex-sdk" / "dist" / "index.js"
PATCH = "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch\n"

TURNS: dict[str, list[dict[str, Any]]] = {
    "simple": [script.reply(script.message("Hello there."), usage=script.usage(50, 5))],
    "command": [
        script.reply(
            script.function_call(
                "exec_command", {"cmd": "echo node", "login": False, "yield_time_ms": 2000}, "c1"
            ),
            usage=script.usage(50, 5),
        ),
        script.reply(script.message("Done."), usage=script.usage(70, 7)),
    ],
    "patch": [
        script.reply(script.custom_tool_call("apply_patch", PATCH, "p1"), usage=script.usage(50, 5)),
        script.reply(script.message("Patched."), usage=script.usage(70, 7)),
    ],
}


def _config(base_url: str) -> dict[str, Any]:
    return {
        "model": "gpt-5.5",
        "model_provider": "mock",
        "model_providers": {
            "mock": {
                "name": "mock",
                "base_url": base_url,
                "wire_api": "responses",
                "supports_websockets": False,
                "requires_openai_auth": False,
            }
        },
        "feedback": {"enabled": False},
        "analytics": {"enabled": False},
        "check_for_update_on_startup": False,
        "features": {"shell_snapshot": False},
    }


def _normalised(events: list[dict[str, Any]], workdir: Path) -> list[dict[str, Any]]:
    out = []
    for event in events:
        event = json.loads(json.dumps(event).replace(str(workdir), "<WORKDIR>"))
        if "thread_id" in event:
            event["thread_id"] = "<THREAD>"
        item = event.get("item") or {}
        if "command" in item:
            item["command"] = re.sub(r"^\S+ ", "<SHELL> ", item["command"])
        out.append(event)
    return out


@pytest.mark.parametrize("turn", list(TURNS))
async def test_the_sdk_reads_the_same_events_as_from_codex(
    turn: str, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    node = shutil.which("node")
    assert node, "node not found: .ci/run installs Node.js (apt-get install nodejs npm)"
    assert SDK_ENTRY.is_file(), f"{SDK_ENTRY} missing: run ./scripts/install-node-sdk"
    fake_model.add(*TURNS[turn])
    repo = git_repo(tmp_path / "repo")
    payload = {
        "sdk": str(SDK_ENTRY),
        "tether": str(Path(sys.executable).parent / "tether"),
        "baseUrl": fake_model.base_url,
        "config": _config(fake_model.base_url),
        "cwd": str(repo),
        "prompt": "do it",
        "threadOptions": {"sandboxMode": "workspace-write", "approvalPolicy": "never"},
    }
    proc = await asyncio.create_subprocess_exec(
        node,
        str(STREAM_SCRIPT),
        json.dumps(payload),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(tmp_path / "home")},
    )
    async with asyncio.timeout(EXEC_WAIT_S * 2):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    result = json.loads(out.decode().strip().splitlines()[-1])
    assert "ok" in result, result
    assert _normalised(result["ok"]["events"], repo) == FACTS[turn]
