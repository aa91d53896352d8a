"""The JSON-RPC engine as a client sees it over stdio: framing, the handshake gate, errors, load."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import StartServer
from tests.support.appserver import AppServer, RpcErrorReply


async def test_requests_before_initialize_are_refused_and_initialize_works_once(
    start_server: StartServer,
) -> None:
    server = await start_server(initialize=False)
    reply = await server.call("thread/list", {})
    assert reply["error"] == {"code": -32600, "message": "Not initialized"}
    result = await server.initialize("my_client")
    assert result["userAgent"].startswith("my_client/0.169.0 ")
    assert result["platformFamily"] == "unix"
    again = await server.call("initialize", {"clientInfo": {"name": "x", "version": "1"}})
    assert again["error"] == {"code": -32600, "message": "Already initialized"}


async def test_ids_are_echoed_as_sent_and_jsonrpc_member_is_accepted(start_server: StartServer) -> None:
    server = await start_server()
    await server.send({"jsonrpc": "2.0", "id": "string-id-1", "method": "thread/loaded/list", "params": {}})
    reply = await server.wait_for(lambda m: m.get("id") == "string-id-1")
    assert reply == {"id": "string-id-1", "result": {"data": [], "nextCursor": None}}
    assert all("jsonrpc" not in m for m in server.messages)


async def test_unknown_method_bad_params_and_unknown_thread_get_distinct_errors(
    start_server: StartServer,
) -> None:
    server = await start_server()
    assert (await server.call("no/such/method", {}))["error"]["code"] == -32601
    bad = (await server.call("turn/start", {"threadId": 5, "input": []}))["error"]
    assert bad["code"] == -32602 and "threadId" in bad["message"] and "pydantic" not in bad["message"]
    missing = (await server.call("turn/start", {"input": []}))["error"]
    assert missing == {"code": -32602, "message": "Invalid params: missing field `threadId`"}
    unknown = (await server.call("turn/start", {"threadId": "nope", "input": []}))["error"]
    assert unknown == {"code": -32600, "message": "thread not found: nope"}


async def test_malformed_frames_are_answered_with_null_id_and_the_connection_stays_open(
    start_server: StartServer,
) -> None:
    server = await start_server()
    mark = server.mark()
    await server.send_raw(b'{"id": 90, "method": "thread/list", "params": {\n')
    await server.send_raw(b"[1, 2, 3]\n")
    await server.send_raw(b'{"id": 91}\n')
    await server.send_raw(b'{"id": 777, "result": {"decision": "accept"}}\n')
    await server.send({"method": "no/such/notification"})
    result = await server.request("thread/loaded/list", {})
    assert result == {"data": [], "nextCursor": None}
    errors = [m["error"]["code"] for m in server.since(mark) if "error" in m]
    ids = [m["id"] for m in server.since(mark) if "error" in m]
    assert errors == [-32700, -32600, -32600]
    assert ids == [None, None, 91]


async def test_experimental_methods_and_fields_need_the_capability(start_server: StartServer) -> None:
    server = await start_server()
    reply = await server.call("thread/start", {"mockExperimentalField": "x"})
    assert reply["error"] == {
        "code": -32600,
        "message": "thread/start.mockExperimentalField requires experimentalApi capability",
    }
    granular = {"granular": {"sandbox_approval": True, "rules": True, "mcp_elicitations": True}}
    reply = await server.call("thread/start", {"approvalPolicy": granular})
    assert reply["error"]["message"] == "askForApproval.granular requires experimentalApi capability"


async def test_experimental_methods_need_the_capability(start_server: StartServer) -> None:
    server = await start_server()
    reply = await server.call("collaborationMode/list", {})
    assert reply["error"] == {
        "code": -32600,
        "message": "collaborationMode/list requires experimentalApi capability",
    }


async def test_experimental_fields_are_accepted_with_the_capability(start_server: StartServer) -> None:
    server = await start_server(
        "-c", 'plan_mode_reasoning_effort="high"', "-c", 'model_reasoning_effort="low"', initialize=False
    )
    await server.initialize(experimental=True)
    result = await server.request("thread/start", {"mockExperimentalField": "x"})
    assert result["thread"]["status"] == {"type": "idle"}
    modes = await server.request("collaborationMode/list", {})
    # Codex 0.169.0's answer, the same with `plan_mode_reasoning_effort` or `model_reasoning_effort` set.
    assert modes == {
        "data": [
            {"name": "Plan", "mode": "plan", "model": None, "reasoning_effort": "medium"},
            {"name": "Default", "mode": "default", "model": None, "reasoning_effort": None},
        ]
    }


async def test_concurrent_requests_are_all_answered(start_server: StartServer, workdir: Path) -> None:
    server = await start_server()
    results = await asyncio.gather(
        *(server.request("thread/start", {"cwd": str(workdir)}) for _ in range(20)),
        *(server.request("config/read", {}) for _ in range(20)),
    )
    ids = {r["thread"]["id"] for r in results[:20]}
    assert len(ids) == 20
    loaded = await server.request("thread/loaded/list", {})
    assert set(loaded["data"]) == ids


async def test_a_flood_beyond_the_ingress_limit_is_answered_overloaded_and_nothing_is_dropped(
    start_server: StartServer,
) -> None:
    server = await start_server("--max-inflight-requests", "1")
    count = 300
    frames = b"".join(
        json.dumps({"id": 1000 + i, "method": "thread/read", "params": {"threadId": f"t{i}"}}).encode()
        + b"\n"
        for i in range(count)
    )
    mark = server.mark()
    await server.send_raw(frames)
    wanted = set(range(1000, 1000 + count))

    def answered() -> set[int]:
        return {m["id"] for m in server.since(mark) if m.get("id") in wanted}

    await server.wait_for(lambda m: len(answered()) == count, after=mark)
    replies = [m for m in server.since(mark) if m.get("id") in wanted]
    assert len(replies) == count  # exactly one answer each
    codes = {m["error"]["code"] for m in replies}
    assert codes <= {-32600, -32001}
    overloaded = [m for m in replies if m["error"]["code"] == -32001]
    assert overloaded, "a flood past a limit of one request in flight must be refused in part"
    assert overloaded[0]["error"]["message"] == "Server overloaded; retry later."


async def test_nothing_but_protocol_lines_reach_stdout_even_with_config_warnings(
    tmp_path: Path, start_server: StartServer
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("unknown_key = 1\n[tui]\nnotifications = true\n")
    server = await start_server(home=home, initialize=False)
    await server.initialize()
    warning = await server.notification("configWarning")
    assert "unknown_key" in warning["params"]["summary"]
    await server.request("thread/start", {})
    assert await server.close() == 0
    assert "unknown config key `unknown_key` ignored" in server.stderr()
    assert not server.stdout_garbage


async def test_a_bad_config_value_stops_the_daemon_with_a_message_naming_the_key(tmp_path: Path) -> None:
    server = await AppServer.start(tmp_path / "home", ["-c", 'sandbox_mode="bogus"'])
    assert await server.close() == 2
    assert "sandbox_mode" in server.stderr()
    assert server.messages == []


async def test_strict_config_makes_unknown_keys_fatal(tmp_path: Path) -> None:
    server = await AppServer.start(tmp_path / "home", ["--strict-config", "-c", "bogus_key=1"])
    assert await server.close() == 2
    assert "bogus_key" in server.stderr()


async def test_every_notification_carries_emitted_at_ms(start_server: StartServer, workdir: Path) -> None:
    server = await start_server()
    await server.request("thread/start", {"cwd": str(workdir)})
    started = await server.notification("thread/started")
    assert isinstance(started["emittedAtMs"], int)


async def test_opted_out_notifications_are_not_sent(start_server: StartServer, workdir: Path) -> None:
    server = await start_server(initialize=False)
    await server.initialize(opt_out=["thread/started"])
    await server.request("thread/start", {"cwd": str(workdir)})
    await server.request("thread/loaded/list", {})
    assert not [m for m in server.messages if m.get("method") == "thread/started"]


@pytest.mark.parametrize("cwd", ["relative/path"])
async def test_a_relative_cwd_is_refused(start_server: StartServer, cwd: str) -> None:
    server = await start_server()
    with pytest.raises(RpcErrorReply) as err:
        await server.request("thread/start", {"cwd": cwd})
    assert err.value.code == -32600 and "absolute" in err.value.message


async def test_stdio_works_with_files_instead_of_pipes(tmp_path: Path) -> None:
    """`tether app-server < requests.jsonl > replies.jsonl` (and /dev/null) must not crash."""
    requests = tmp_path / "requests.jsonl"
    replies = tmp_path / "replies.jsonl"
    requests.write_text(
        json.dumps({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "f", "version": "1"}}})
        + "\n"
        + json.dumps({"id": 2, "method": "thread/loaded/list", "params": {}})
        + "\n"
    )
    env = {**os.environ, "TETHER_HOME": str(tmp_path / "home")}
    with requests.open("rb") as stdin, replies.open("wb") as stdout:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tether_server",
            "app-server",
            stdin=stdin,
            stdout=stdout,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )
        async with asyncio.timeout(30):
            assert await proc.wait() == 0
    lines = [json.loads(line) for line in replies.read_text().splitlines()]
    assert [m["id"] for m in lines] == [1, 2]
    with requests.open("rb") as stdin:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tether_server",
            "app-server",
            stdin=stdin,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )
        async with asyncio.timeout(30):
            assert await proc.wait() == 0


async def test_model_list_and_config_read_describe_the_configuration(start_server: StartServer) -> None:
    server = await start_server()
    models = await server.request("model/list", {})
    # Codex 0.169.0 lists its bundled presets whatever model a Responses provider is set to use.
    assert models["data"][0]["id"] == "gpt-6.1-sol" and models["data"][0]["isDefault"] is True
    config = (await server.request("config/read", {}))["config"]
    assert config["model"] == "gpt-test" and config["model_provider"] == "mock"
    assert config["allow_login_shell"] is False


async def test_fs_read_file_returns_base64_and_clear_errors(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server()
    target = tmp_path / "hello.txt"
    target.write_text("hello file\n")
    result = await server.request("fs/readFile", {"path": str(target)})
    assert result == {"dataBase64": "aGVsbG8gZmlsZQo="}
    missing = await server.call("fs/readFile", {"path": str(tmp_path / "nope")})
    assert missing["error"] == {"code": -32603, "message": "No such file or directory (os error 2)"}
    relative = await server.call("fs/readFile", {"path": "hello.txt"})
    assert relative["error"]["code"] == -32600


async def test_a_corrupt_database_is_a_clear_startup_error_and_is_left_alone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "tether.sqlite").write_bytes(b"not a database at all")
    server = await AppServer.start(home)
    assert await server.close() == 2
    assert "is corrupt or not a SQLite database" in server.stderr()
    assert "Traceback" not in server.stderr()
    assert (home / "tether.sqlite").read_bytes() == b"not a database at all"


async def test_account_read_reports_an_api_key_account_only_when_the_key_is_set(tmp_path: Path) -> None:
    args = ["-c", 'model_providers.openai.env_key="TETHER_TEST_ACCOUNT_KEY"']
    without = await AppServer.start(tmp_path / "a", args, env={"TETHER_TEST_ACCOUNT_KEY": ""})
    await without.initialize()
    assert await without.request("account/read", {}) == {
        "account": None,
        "requiresOpenaiAuth": False,
        "userId": None,
    }
    await without.close()
    with_key = await AppServer.start(tmp_path / "b", args, env={"TETHER_TEST_ACCOUNT_KEY": "sk-x"})
    await with_key.initialize()
    assert (await with_key.request("account/read", {}))["account"] == {"type": "apiKey"}
    await with_key.close()
