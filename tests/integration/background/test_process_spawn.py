"""`process/spawn|writeStdin|kill|resizePty` as Codex 0.169.0 answers them (observed on the binary):
`{}` once the process runs, then `process/outputDelta` (base64, when streamed) and `process/exited`
with what was not streamed, to the spawning connection only. Tether runs the process under the
sandbox `command/exec` uses (config.toml's `sandbox_mode`); Codex runs it unsandboxed."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from tests.chaos.stubborn import new_marker, pids_with, stubborn_command, wait_for_stubborn
from tests.conftest import StartApp
from tests.integration.background import dev_server
from tests.integration.desktop_surface.helpers import refused
from tests.support.appserver import mock_provider_args
from tests.support.rpcclient import RpcClient
from tests.support.wsclient import SocketServer
from tether_testing.fake_responses import FakeResponsesServer


async def _client(start_app: StartApp) -> RpcClient:
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    return server


async def _exited(client: RpcClient, handle: str, mark: int) -> dict[str, Any]:
    done = await client.notification(
        "process/exited", after=mark, where=lambda p: p["processHandle"] == handle
    )
    return dict(done["params"])


def _deltas(client: RpcClient, handle: str, mark: int) -> list[tuple[str, bytes, bool]]:
    return [
        (m["params"]["stream"], base64.b64decode(m["params"]["deltaBase64"]), m["params"]["capReached"])
        for m in client.since(mark)
        if m.get("method") == "process/outputDelta" and m["params"]["processHandle"] == handle
    ]


async def test_a_buffered_process_reports_its_output_and_exit_code_when_it_exits(
    start_app: StartApp, workdir: Path
) -> None:
    client = await _client(start_app)
    mark = client.mark()
    argv = ["sh", "-c", "echo hi; echo err >&2; exit 3"]
    answer = await client.request(
        "process/spawn", {"command": argv, "cwd": str(workdir), "processHandle": "h1"}
    )
    assert answer == {}
    assert await _exited(client, "h1", mark) == {
        "processHandle": "h1",
        "exitCode": 3,
        "outputDrainTimedOut": False,
        "stdout": "hi\n",
        "stdoutCapReached": False,
        "stderr": "err\n",
        "stderrCapReached": False,
    }
    assert _deltas(client, "h1", mark) == []
    # The handle is free again once its process has exited.
    assert await refused(client, "process/kill", {"processHandle": "h1"}) == (
        -32600,
        'no active process for process handle "h1"',
    )
    again = {"command": ["true"], "cwd": str(workdir), "processHandle": "h1"}
    assert await client.request("process/spawn", again) == {}


async def test_streamed_output_comes_as_deltas_and_stdin_reaches_the_process_until_it_is_killed(
    start_app: StartApp, workdir: Path
) -> None:
    client = await _client(start_app)
    mark = client.mark()
    argv = ["sh", "-c", "echo hi; echo err >&2; exit 3"]
    params = {"command": argv, "cwd": str(workdir), "processHandle": "h2", "streamStdoutStderr": True}
    await client.request("process/spawn", params)
    done = await _exited(client, "h2", mark)
    assert (done["exitCode"], done["stdout"], done["stderr"]) == (3, "", "")
    assert sorted(_deltas(client, "h2", mark)) == [("stderr", b"err\n", False), ("stdout", b"hi\n", False)]

    mark = client.mark()
    cat = {
        "command": ["cat"],
        "cwd": str(workdir),
        "processHandle": "h3",
        "streamStdin": True,
        "streamStdoutStderr": True,
    }
    await client.request("process/spawn", cat)
    assert await refused(client, "process/spawn", {**cat, "streamStdin": False}) == (
        -32600,
        'duplicate active process handle: "h3"',
    )
    hello = base64.b64encode(b"hello\n").decode()
    assert await client.request("process/writeStdin", {"processHandle": "h3", "deltaBase64": hello}) == {}
    await client.notification("process/outputDelta", after=mark, where=lambda p: p["processHandle"] == "h3")
    assert _deltas(client, "h3", mark) == [("stdout", b"hello\n", False)]
    assert await refused(
        client, "process/resizePty", {"processHandle": "h3", "size": {"rows": 9, "cols": 9}}
    ) == (
        -32600,
        "failed to resize PTY: process is not attached to a PTY",
    )
    assert await client.request("process/kill", {"processHandle": "h3"}) == {}
    assert (await _exited(client, "h3", mark))["exitCode"] == 137
    assert await refused(client, "process/kill", {"processHandle": "h3"}) == (
        -32600,
        'no active process for process handle "h3"',
    )

    mark = client.mark()
    await client.request(
        "process/spawn", {"command": ["cat"], "cwd": str(workdir), "processHandle": "h4", "streamStdin": True}
    )
    assert (
        await client.request(
            "process/writeStdin", {"processHandle": "h4", "deltaBase64": hello, "closeStdin": True}
        )
        == {}
    )
    assert (await _exited(client, "h4", mark))["stdout"] == "hello\n"


async def test_a_tty_process_gets_the_size_it_asked_for(start_app: StartApp, workdir: Path) -> None:
    client = await _client(start_app)
    mark = client.mark()
    params = {
        "command": ["sh", "-c", "read line; stty size"],
        "cwd": str(workdir),
        "processHandle": "t",
        "tty": True,
        "size": {"rows": 5, "cols": 7},
    }
    await client.request("process/spawn", params)
    resize = {"processHandle": "t", "size": {"rows": 30, "cols": 100}}
    assert await client.request("process/resizePty", resize) == {}
    enter = base64.b64encode(b"\n").decode()
    await client.request("process/writeStdin", {"processHandle": "t", "deltaBase64": enter})
    done = await _exited(client, "t", mark)
    assert done["exitCode"] == 0
    assert b"30 100" in b"".join(chunk for _stream, chunk, _cap in _deltas(client, "t", mark))


async def test_bad_requests_are_refused_as_codex_refuses_them(start_app: StartApp, workdir: Path) -> None:
    client = await _client(start_app)
    cwd = str(workdir)
    cases: list[tuple[str, dict[str, Any], int, str]] = [
        (
            "process/spawn",
            {"command": [], "cwd": cwd, "processHandle": "x"},
            -32600,
            "command must not be empty",
        ),
        (
            "process/spawn",
            {"command": ["true"], "cwd": "relative", "processHandle": "x"},
            -32600,
            "Invalid request: AbsolutePathBuf deserialized without a base path",
        ),
        (
            "process/spawn",
            {"command": ["cat"], "cwd": cwd, "processHandle": "x", "size": {"rows": 5, "cols": 5}},
            -32602,
            "process/spawn size requires tty: true",
        ),
        (
            "process/writeStdin",
            {"processHandle": "nope"},
            -32602,
            "process/writeStdin requires deltaBase64 or closeStdin",
        ),
        (
            "process/writeStdin",
            {"processHandle": "nope", "deltaBase64": "!!!"},
            -32602,
            "invalid deltaBase64: Invalid symbol 33, offset 0.",
        ),
        (
            "process/writeStdin",
            {"processHandle": "nope", "closeStdin": True},
            -32600,
            'no active process for process handle "nope"',
        ),
        ("process/kill", {"processHandle": "nope"}, -32600, 'no active process for process handle "nope"'),
        (
            "process/resizePty",
            {"processHandle": "nope", "size": {"rows": 1, "cols": 1}},
            -32600,
            'no active process for process handle "nope"',
        ),
    ]
    for method, params, code, message in cases:
        assert await refused(client, method, params) == (code, message), method
    mark = client.mark()
    await client.request("process/spawn", {"command": ["cat"], "cwd": cwd, "processHandle": "closed"})
    hello = base64.b64encode(b"hello\n").decode()
    assert await refused(client, "process/writeStdin", {"processHandle": "closed", "deltaBase64": hello}) == (
        -32600,
        "stdin streaming is not enabled for this process",
    )
    assert (await _exited(client, "closed", mark))["exitCode"] == 0  # its stdin is /dev/null


async def test_a_process_is_its_connections_alone_and_ends_with_it(
    tmp_path: Path, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await SocketServer.start(
        tmp_path / "home", [*mock_provider_args(fake_model.base_url), "--listen", "unix://"]
    )
    try:
        owner, stranger = await server.connect_unix(), await server.connect_unix()
        for client in (owner, stranger):
            await client.initialize(experimental=True)
        marker = new_marker()
        params = {
            "command": ["/bin/sh", "-c", stubborn_command(marker)],
            "cwd": str(workdir),
            "processHandle": "dev",
            "timeoutMs": None,
        }
        assert await owner.request("process/spawn", params) == {}
        tree = await wait_for_stubborn(marker, 2)
        # The same handle is another process on another connection, and this one is out of reach.
        assert await refused(stranger, "process/kill", {"processHandle": "dev"}) == (
            -32600,
            'no active process for process handle "dev"',
        )
        assert pids_with(marker)
        await owner.close(check=False)
        for pid in tree:
            await dev_server.wait_gone(pid)
        assert server.proc.returncode is None
        assert [m for m in stranger.messages if m.get("method", "").startswith("process/")] == []
    finally:
        await server.stop()


async def test_caps_timeout_and_environment_as_codex_applies_them(start_app: StartApp, workdir: Path) -> None:
    client = await _client(start_app)
    cwd = str(workdir)
    both = ["sh", "-c", "printf 0123456789; printf abcdefgh >&2"]
    mark = client.mark()
    await client.request(
        "process/spawn", {"command": both, "cwd": cwd, "processHandle": "a", "outputBytesCap": 4}
    )
    done = await _exited(client, "a", mark)
    assert (done["stdout"], done["stdoutCapReached"], done["stderr"], done["stderrCapReached"]) == (
        "0123",
        True,
        "abcd",
        True,
    )
    streamed = {
        "command": both,
        "cwd": cwd,
        "processHandle": "b",
        "outputBytesCap": 4,
        "streamStdoutStderr": True,
    }
    await client.request("process/spawn", streamed)
    done = await _exited(client, "b", mark)
    assert (done["stdout"], done["stdoutCapReached"], done["stderr"], done["stderrCapReached"]) == (
        "",
        True,
        "",
        True,
    )
    assert sorted(_deltas(client, "b", mark)) == [("stderr", b"abcd", True), ("stdout", b"0123", True)]

    sleeper = {"command": ["sleep", "5"], "cwd": cwd, "processHandle": "c", "timeoutMs": 300}
    await client.request("process/spawn", sleeper)
    assert (await _exited(client, "c", mark))["exitCode"] == 124
    env = {"command": ["sh", "-c", "echo $FOO"], "cwd": cwd, "processHandle": "d", "env": {"FOO": "bar"}}
    await client.request("process/spawn", env)
    assert (await _exited(client, "d", mark))["stdout"] == "bar\n"
    negative = {"command": ["true"], "cwd": cwd, "processHandle": "e", "timeoutMs": -1}
    assert await refused(client, "process/spawn", negative) == (
        -32602,
        "process/spawn timeoutMs must be non-negative, got -1",
    )
