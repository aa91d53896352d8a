"""`tether exec` as a script or CI job runs it: a real subprocess against the fake model."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.appserver import WAIT_S, mock_provider_args
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


@dataclass
class Finished:
    code: int
    stdout: str
    stderr: str


async def _start(
    fake: FakeResponsesServer, home: Path, workdir: Path, *args: str
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tether_server",
        "exec",
        *mock_provider_args(fake.base_url),
        "--cd",
        str(workdir),
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(home)},
    )


async def _exec(
    fake: FakeResponsesServer, home: Path, workdir: Path, *args: str, stdin: str = ""
) -> Finished:
    proc = await _start(fake, home, workdir, *args)
    async with asyncio.timeout(WAIT_S * 4):
        out, err = await proc.communicate(stdin.encode())
    assert proc.returncode is not None
    return Finished(proc.returncode, out.decode(), err.decode())


async def test_the_final_agent_message_goes_to_stdout_and_progress_to_stderr(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "true", "yield_time_ms": 1000}, "c1")),
        script.text_reply("All done."),
    )
    done = await _exec(fake_model, tmp_path / "home", workdir, "Say it")
    assert done.code == 0, done.stderr
    assert done.stdout == "All done.\n"
    assert "tether exec: thread " in done.stderr
    assert "$ " in done.stderr and "true" in done.stderr
    assert fake_model.requests[0].body["input"][-1]["content"][0]["text"] == "Say it"


async def test_json_mode_prints_every_event_as_one_json_line_ending_with_turn_completed(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(script.text_reply("Hi there.", deltas=2))
    done = await _exec(fake_model, tmp_path / "home", workdir, "--json", "-", stdin="prompt from stdin\n")
    assert done.code == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    methods = [e["method"] for e in events]
    assert methods[0] == "thread/started" and methods[-1] == "turn/completed"
    assert methods.count("item/agentMessage/delta") == 2
    assert events[-1]["params"]["turn"]["status"] == "completed"
    assert "prompt from stdin" in json.dumps(fake_model.requests[0].body["input"])


async def test_output_schema_reaches_the_model_and_the_last_message_is_written_to_a_file(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    schema = {
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"],
        "additionalProperties": False,
    }
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(schema))
    fake_model.add(script.text_reply('{"ok": true}'))
    out_file = tmp_path / "last.txt"
    args = ("--output-schema", str(schema_file), "-o", str(out_file), "Check")
    done = await _exec(fake_model, tmp_path / "home", workdir, *args)
    assert done.code == 0, done.stderr
    text_format = fake_model.requests[0].body["text"]["format"]
    assert text_format["type"] == "json_schema" and text_format["schema"] == schema
    assert out_file.read_text() == '{"ok": true}'
    assert json.loads(done.stdout) == {"ok": True}


async def test_a_failed_turn_exits_1_with_the_error_on_stderr(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(script.failed("server_error", "the model fell over"))
    done = await _exec(fake_model, tmp_path / "home", workdir, "Try")
    assert done.code == 1
    assert done.stdout == ""
    assert "turn failed" in done.stderr


async def test_ctrl_c_interrupts_the_turn_and_exits_130(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(script.reply(script.gated("hold"), script.message("never sent")))
    proc = await _start(fake_model, tmp_path / "home", workdir, "--json", "Wait")
    await fake_model.wait_for_gate("hold", within_s=WAIT_S * 2)
    proc.send_signal(signal.SIGINT)
    async with asyncio.timeout(WAIT_S * 2):
        out, err = await proc.communicate()
    fake_model.release("hold")
    assert proc.returncode == 130, err.decode()
    last = json.loads(out.decode().splitlines()[-1])
    assert last["method"] == "turn/completed" and last["params"]["turn"]["status"] == "interrupted"
