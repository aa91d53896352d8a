"""`tether exec` as a script or CI job runs it: a real subprocess against the fake model.

Every `codex exec` flag Tether takes, the exit statuses, and human output (progress on stderr,
the final message alone on stdout).
"""

from __future__ import annotations

import asyncio
import base64
import json
import signal
import sys
from pathlib import Path

from tests.support.exec_run import EXEC_WAIT_S, git_repo, run_exec, start_exec
from tests.support.exec_shapes import validate_stream
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _user_texts(body: dict[str, object]) -> list[str]:
    texts = []
    for item in body["input"]:  # type: ignore[attr-defined]
        if item.get("role") == "user":
            texts += [c.get("text", "") for c in item["content"] if c.get("type") == "input_text"]
    return texts


async def test_the_final_agent_message_goes_to_stdout_and_readable_progress_to_stderr(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(
        script.reply(
            script.function_call("exec_command", {"cmd": "echo visible", "yield_time_ms": 2000}, "c1")
        ),
        script.text_reply("All done."),
    )
    done = await run_exec(fake_model.base_url, tmp_path / "home", "--cd", str(repo), "Say it")
    assert done.code == 0, done.stderr
    assert done.stdout == "All done.\n"
    assert "tether exec: thread " in done.stderr and "sandbox read-only, approval never" in done.stderr
    assert "$ " in done.stderr and "echo visible" in done.stderr and "│ visible" in done.stderr
    assert "{" not in done.stderr.replace("{}", "")  # readable lines, not JSON
    assert _user_texts(fake_model.requests[0].body)[-1] == "Say it"


async def test_output_schema_constrains_the_final_message_which_is_also_written_to_a_file(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
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
    args = ("--output-schema", str(schema_file), "-o", str(out_file), "--cd", str(repo), "Check")
    done = await run_exec(fake_model.base_url, tmp_path / "home", *args)
    assert done.code == 0, done.stderr
    text_format = fake_model.requests[0].body["text"]["format"]
    assert text_format["type"] == "json_schema" and text_format["schema"] == schema
    assert out_file.read_text() == '{"ok": true}'  # as codex: no newline added
    assert json.loads(done.stdout) == {"ok": True}


async def test_a_failed_turn_exits_1_with_the_error_on_stderr_and_nothing_on_stdout(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.failed("server_error", "the model fell over"))
    done = await run_exec(fake_model.base_url, tmp_path / "home", "--cd", str(repo), "Try")
    assert done.code == 1
    assert done.stdout == ""
    assert "ERROR: the model fell over" in done.stderr and "turn failed: the model fell over" in done.stderr


async def _interrupted(
    fake_model: FakeResponsesServer, tmp_path: Path, sig: signal.Signals
) -> tuple[int, str]:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.reply(script.gated("hold"), script.message("never sent")))
    proc = await start_exec(fake_model.base_url, tmp_path / "home", "--json", "--cd", str(repo), "Wait")
    assert proc.stdin is not None
    proc.stdin.close()
    await fake_model.wait_for_gate("hold", within_s=EXEC_WAIT_S)
    proc.send_signal(sig)
    async with asyncio.timeout(EXEC_WAIT_S):
        out, _ = await proc.communicate()
    fake_model.release("hold")
    assert proc.returncode is not None
    return proc.returncode, out.decode()


async def test_ctrl_c_interrupts_the_turn_and_exits_130(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    code, out = await _interrupted(fake_model, tmp_path, signal.SIGINT)
    assert code == 130
    events = [json.loads(line) for line in out.splitlines()]
    validate_stream(events)
    # As codex exec: the stream just ends, no turn.completed for an interrupted turn.
    assert [e["type"] for e in events] == ["thread.started", "turn.started"]


async def test_sigterm_interrupts_the_turn_too_and_exits_143(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    code, _ = await _interrupted(fake_model, tmp_path, signal.SIGTERM)
    assert code == 143


async def test_unknown_and_unsupported_flags_are_usage_errors_naming_the_flag(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    unknown = await run_exec(fake_model.base_url, home, "--bogus", "x")
    assert unknown.code == 2 and "--bogus" in unknown.stderr and "usage: tether exec" in unknown.stderr
    refused = await run_exec(fake_model.base_url, home, "--worktree", "x")
    assert refused.code == 2 and "--worktree" in refused.stderr and "does not support" in refused.stderr
    color = await run_exec(fake_model.base_url, home, "--color", "purple", "x")
    assert color.code == 2 and "--color" in color.stderr
    assert not fake_model.requests


async def test_outside_a_git_repository_exec_refuses_unless_told_to_skip_the_check(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    # An empty `.git` above it is no repository (a sandbox's mount target, or one a crash left).
    (tmp_path / ".git").mkdir()
    refused = await run_exec(fake_model.base_url, tmp_path / "home", "--cd", str(plain), "x")
    assert refused.code == 1
    assert "Not inside a trusted directory and --skip-git-repo-check was not specified." in refused.stderr
    assert not fake_model.requests
    fake_model.add(script.text_reply("Ran anyway."))
    args = ("--skip-git-repo-check", "--color", "never", "--cd", str(plain), "x")
    allowed = await run_exec(fake_model.base_url, tmp_path / "home", *args)
    assert allowed.code == 0 and allowed.stdout == "Ran anyway.\n", allowed.stderr


async def test_images_go_before_the_prompt_and_the_experimental_json_alias_prints_events(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    first.write_bytes(PNG)
    second.write_bytes(PNG)
    fake_model.add(script.text_reply("Two images."))
    args = ("--experimental-json", "--cd", str(repo), "Look", "-i", str(first), str(second))
    done = await run_exec(fake_model.base_url, tmp_path / "home", *args)
    assert done.code == 0, done.stderr
    validate_stream(done.events)
    content = [
        c for i in fake_model.requests[0].body["input"] if i.get("role") == "user" for c in i["content"]
    ]
    images = [c for c in content if c["type"] == "input_image"]
    assert len(images) == 2 and all(c["image_url"].startswith("data:image/png;base64,") for c in images)
    assert content[-1] == {"type": "input_text", "text": "Look"}
    missing = await run_exec(
        fake_model.base_url, tmp_path / "home", "--cd", str(repo), "x", "-i", "/nope.png"
    )
    assert missing.code == 1 and "/nope.png" in missing.stderr


async def test_model_profile_and_feature_flags_reach_the_model_request(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[profiles.deep]\nmodel_reasoning_effort = "high"\n')
    fake_model.add(script.text_reply("ok"))
    args = ("-m", "gpt-exec-model", "-p", "deep", "--enable", "some_feature", "--disable", "other_feature")
    done = await run_exec(fake_model.base_url, home, *args, "--cd", str(repo), "x")
    assert done.code == 0, done.stderr
    body = fake_model.requests[0].body
    assert body["model"] == "gpt-exec-model"
    assert body["reasoning"]["effort"] == "high"


async def test_sandbox_flags_set_the_policy_and_add_dir_makes_a_directory_writable(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    extra = tmp_path / "extra"
    extra.mkdir()
    write = {"cmd": f"echo hi > {extra}/out.txt", "yield_time_ms": 3000}
    fake_model.add(
        script.reply(script.function_call("exec_command", write, "w1")), script.text_reply("tried")
    )
    fake_model.add(
        script.reply(script.function_call("exec_command", write, "w2")), script.text_reply("wrote")
    )
    home = tmp_path / "home"
    # The test's directories live under /tmp, which workspace-write leaves writable by default.
    no_tmp = ["-c", "sandbox_workspace_write.exclude_slash_tmp=true"]
    no_tmp += ["-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"]
    without = await run_exec(
        fake_model.base_url, home, *no_tmp, "-s", "workspace-write", "--cd", str(repo), "w"
    )
    assert without.code == 0, without.stderr
    assert "sandbox workspace-write" in without.stderr and not (extra / "out.txt").exists()
    args = (*no_tmp, "--full-auto", "--add-dir", str(extra), "--cd", str(repo), "w")
    with_dir = await run_exec(fake_model.base_url, home, *args)
    assert with_dir.code == 0, with_dir.stderr
    assert "sandbox workspace-write, approval on-request" in with_dir.stderr
    assert (extra / "out.txt").read_text() == "hi\n"


async def test_bypass_flag_runs_unsandboxed_and_a_config_approval_policy_is_respected(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("a"), script.text_reply("b"))
    home = tmp_path / "home"
    yolo = await run_exec(
        fake_model.base_url, home, "--dangerously-bypass-approvals-and-sandbox", "--cd", str(repo), "x"
    )
    assert yolo.code == 0 and "sandbox danger-full-access, approval never" in yolo.stderr, yolo.stderr
    asked = await run_exec(
        fake_model.base_url, home, "-c", 'approval_policy="untrusted"', "--cd", str(repo), "--ephemeral", "x"
    )
    assert asked.code == 0 and "approval untrusted" in asked.stderr, asked.stderr
    both = await run_exec(
        fake_model.base_url, home, "--dangerously-bypass-approvals-and-sandbox", "-s", "read-only", "x"
    )
    assert both.code == 2


async def test_the_sdk_environment_api_key_base_url_and_codex_home_are_honoured(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("keyed"))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tether_server",
        "exec",
        "-c",
        'model="gpt-test"',
        "--cd",
        str(repo),
        "x",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "CODEX_HOME": str(tmp_path / "codex-home"),  # and no TETHER_HOME
            "CODEX_API_KEY": "sk-from-the-sdk",
            "OPENAI_BASE_URL": fake_model.base_url,
            "CODEX_INTERNAL_ORIGINATOR_OVERRIDE": "codex_sdk_ts",
        },
    )
    async with asyncio.timeout(EXEC_WAIT_S):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert out.decode() == "keyed\n"
    assert fake_model.requests[0].header("authorization") == "Bearer sk-from-the-sdk"
    assert (tmp_path / "codex-home" / "tether.sqlite").is_file()
