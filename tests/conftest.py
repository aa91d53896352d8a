"""Shared fixtures: a fake model on loopback, a scratch TETHER_HOME, a running app-server.

`start_server` runs `tether app-server` as a subprocess over stdio; `start_app` is its in-process
twin (same arguments, same client API, same schema checks), for every test that does not need a
process boundary: it is several times faster and a failure comes with the server's traceback.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.appserver import AppServer, mock_provider_args
from tests.support.inprocess import InProcessServer
from tether_testing.fake_responses import FakeResponsesServer


@pytest.fixture
async def fake_model() -> AsyncIterator[FakeResponsesServer]:
    async with FakeResponsesServer() as fake:
        yield fake


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


StartServer = Callable[..., Awaitable[AppServer]]


@pytest.fixture
async def start_server(tmp_path: Path, fake_model: FakeResponsesServer) -> AsyncIterator[StartServer]:
    servers: list[AppServer] = []

    async def start(
        *extra: str, home: Path | None = None, initialize: bool = True, stream_max_retries: int = 0, **kw: Any
    ) -> AppServer:
        args = [*mock_provider_args(fake_model.base_url, stream_max_retries=stream_max_retries), *extra]
        server = await AppServer.start(home or tmp_path / "home", args, **kw)
        servers.append(server)
        if initialize:
            await server.initialize()
        return server

    yield start
    for server in servers:
        await server.close(check=False)
    for server in servers:
        assert not server.stdout_garbage, f"non-protocol bytes on stdout: {server.stdout_garbage[:3]}"
        assert not server.violations, "reference schema violations:\n" + "\n".join(server.violations[:20])


StartApp = Callable[..., Awaitable[InProcessServer]]


@pytest.fixture
async def start_app(
    tmp_path: Path, fake_model: FakeResponsesServer, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[StartApp]:
    """`start_server`'s signature and behaviour, in this process.

    What the subprocess gets from its environment, the app gets from this one: the working
    directory (`cwd`, default the home), `TETHER_HOME` and `env` hold for the rest of the test.
    """
    servers: list[InProcessServer] = []

    async def start(
        *extra: str,
        home: Path | None = None,
        initialize: bool = True,
        stream_max_retries: int = 0,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> InProcessServer:
        home = home or tmp_path / "home"
        home.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv("TETHER_HOME", str(home))
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(cwd or home)
        args = [*mock_provider_args(fake_model.base_url, stream_max_retries=stream_max_retries), *extra]
        server = await InProcessServer.start(home, args)
        servers.append(server)
        if initialize:
            await server.initialize()
        return server

    yield start
    for server in servers:
        await server.close(check=False)
    for server in servers:
        server.check()
