"""Local model servers: `--oss`/`oss_provider`, `model/list` from the server's `/v1/models`, and
what a user sees when no server answers (a closed loopback port)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import StartApp
from tests.integration.test_chat_provider import chat_args
from tests.support.exec_run import EXEC_WAIT_S
from tests.support.rpcclient import RpcClient
from tether_testing import FakeChatServer, chat_text_reply


async def _closed_port_url() -> str:
    async with FakeChatServer() as fake:
        url = fake.base_url
    return url  # stopped: nothing listens there any more


async def _thread(server: RpcClient, workdir: Path) -> str:
    result = await server.request("thread/start", {"cwd": str(workdir)})
    return str(result["thread"]["id"])


async def test_model_list_shows_the_models_the_chat_server_lists(start_app: StartApp, workdir: Path) -> None:
    async with FakeChatServer(models=["qwen3:8b", "gpt-oss:20b"]) as fake:
        server = await start_app(*chat_args(fake))
        listed = await server.request("model/list", {})

    assert [entry["id"] for entry in listed["data"]] == ["qwen3:8b", "gpt-oss:20b"]
    assert [entry["isDefault"] for entry in listed["data"]] == [True, False]


async def test_model_list_with_no_server_answering_is_a_clear_error(start_app: StartApp) -> None:
    url = await _closed_port_url()
    server = await start_app(
        "-c", f'model_providers.ollama.base_url="{url}"', "-c", 'model_provider="ollama"'
    )
    answer = await server.call("model/list", {})

    assert f"no model server answers at {url} (is it running?)" in answer["error"]["message"]


async def test_a_turn_with_no_server_answering_fails_naming_the_address(
    start_app: StartApp, workdir: Path
) -> None:
    url = await _closed_port_url()
    server = await start_app(
        "-c",
        'model_provider="lmstudio"',
        "-c",
        f'model_providers.lmstudio.base_url="{url}"',
        "-c",
        "model_providers.lmstudio.stream_max_retries=0",
    )
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    done = await server.notification("turn/completed", after=mark)

    assert done["params"]["turn"]["status"] == "failed"
    assert f"no model server answers at {url} (is it running?)" in done["params"]["turn"]["error"]["message"]


async def test_oss_provider_selects_the_built_in_ollama_over_chat_completions(
    start_app: StartApp, workdir: Path
) -> None:
    async with FakeChatServer([chat_text_reply("from ollama")]) as fake:
        server = await start_app(
            "-c",
            'model_provider="oss"',
            "-c",
            'oss_provider="ollama"',
            "-c",
            f'model_providers.ollama.base_url="{fake.base_url}"',
        )
        thread_id = await _thread(server, workdir)
        mark = server.mark()
        await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
        done = await server.notification("turn/completed", after=mark)

    assert done["params"]["turn"]["status"] == "completed"
    assert fake.requests[0].path == "/v1/chat/completions"


async def test_exec_oss_runs_a_turn_on_the_local_server_with_codexs_default_model(tmp_path: Path) -> None:
    async with FakeChatServer([chat_text_reply("Hello from gpt-oss.")]) as fake:
        argv = [
            *(sys.executable, "-m", "tether_server", "exec", "--oss", "--local-provider", "ollama"),
            *("-c", f'model_providers.ollama.base_url="{fake.base_url}"', "-c", "allow_login_shell=false"),
            *("--skip-git-repo-check", "--cd", str(tmp_path), "Say hello"),
        ]
        env = {**os.environ, "TETHER_HOME": str(tmp_path / "home")}
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        async with asyncio.timeout(EXEC_WAIT_S):
            out, err = await proc.communicate()

    assert proc.returncode == 0, err.decode()
    assert out.decode() == "Hello from gpt-oss.\n"
    assert fake.requests[0].body["model"] == "gpt-oss:20b"


async def test_exec_oss_without_a_chosen_server_says_how_to_choose_one(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "tether_server", "exec", "--oss", "--skip-git-repo-check", "hi"]
    env = {**os.environ, "TETHER_HOME": str(tmp_path / "home")}
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path
    )
    async with asyncio.timeout(EXEC_WAIT_S):
        _, err = await proc.communicate()

    assert proc.returncode != 0
    assert "--local-provider ollama|lmstudio" in err.decode()
