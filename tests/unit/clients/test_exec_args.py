"""`tether exec`'s command line takes what `codex exec` 0.169.0 takes, in the order the SDK sends it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_client.exec_args import UsageError, parse


def test_the_typescript_sdk_resume_command_line_parses() -> None:
    # The argv @openai/codex-sdk builds for resumeThread(id).run([text, local_image]).
    argv = [
        "--experimental-json",
        "--config",
        'openai_base_url="http://127.0.0.1:1/v1"',
        "--model",
        "gpt-x",
        "--sandbox",
        "workspace-write",
        "--cd",
        "/work",
        "--add-dir",
        "/extra",
        "--skip-git-repo-check",
        "--output-schema",
        "/tmp/schema.json",
        "--config",
        'approval_policy="on-request"',
        "resume",
        "0199-thread",
        "--image",
        "/a.png",
        "--image",
        "/b.png",
    ]
    args = parse(argv)
    assert args.json and args.resume and args.skip_git_repo_check
    assert args.session_id == "0199-thread" and args.prompt is None
    assert args.overrides == ['openai_base_url="http://127.0.0.1:1/v1"', 'approval_policy="on-request"']
    assert args.images == [Path("/a.png"), Path("/b.png")]
    assert (args.sandbox, args.cd, args.add_dirs, args.model) == (
        "workspace-write",
        Path("/work"),
        [Path("/extra")],
        "gpt-x",
    )


def test_resume_last_takes_only_a_prompt_and_options_before_resume_carry_over() -> None:
    args = parse(["--json", "-m", "m1", "resume", "--last", "--all", "go on", "-o", "/out.txt"])
    assert args.last and args.all and args.session_id is None and args.prompt == "go on"
    assert args.model == "m1" and args.output_last_message == Path("/out.txt")
    with pytest.raises(UsageError, match="session id"):
        parse(["resume"])


def test_exec_images_take_several_files_and_unknown_flags_are_named() -> None:
    args = parse(["prompt", "-i", "/a.png", "/b.png"])
    assert args.prompt == "prompt" and args.images == [Path("/a.png"), Path("/b.png")]
    with pytest.raises(UsageError, match="--bogus"):
        parse(["--bogus", "x"])
    with pytest.raises(UsageError, match="--local-provider goes with --oss"):
        parse(["--local-provider", "ollama", "x"])
    with pytest.raises(UsageError, match="--approve-for-me"):
        parse(["--approve-for-me", "x"])
    with pytest.raises(UsageError, match="exec review"):
        parse(["review"])
    with pytest.raises(UsageError, match="--exp"):
        parse(["--exp", "x"])  # no abbreviations, as clap


def test_oss_asks_the_server_for_the_local_provider_as_codex_exec_did() -> None:
    assert parse(["--oss", "x"]).overrides == ['model_provider="oss"']
    chosen = parse(["-c", "a=1", "--oss", "--local-provider", "lmstudio", "x"]).overrides
    assert chosen == ["a=1", 'model_provider="oss"', 'oss_provider="lmstudio"']
