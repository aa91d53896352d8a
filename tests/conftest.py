"""Shared fixtures: a fake model on loopback, a scratch TETHER_HOME, a running app-server.

`start_server` runs `tether app-server` as a subprocess over stdio; `start_app` is its in-process
twin (same arguments, same client API, same schema checks), for every test that does not need a
process boundary: it is several times faster and a failure comes with the server's traceback.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support import prereqs
from tests.support.appserver import AppServer, mock_provider_args
from tests.support.inprocess import InProcessServer
from tests.support.postgres import postgres_cluster, postgres_url  # noqa: F401 - fixtures
from tether_testing.fake_responses import FakeResponsesServer

TESTS = Path(__file__).resolve().parent
SUITES = ("unit", "integration", "chaos", "e2e", "conformance", "docs")
"""Each top folder of tests/ is a marker: `pytest -m unit`, `pytest -m "not e2e"`."""

_NOT_RUN = pytest.StashKey[dict[str, list[str]]]()
_DAEMONS = pytest.StashKey[list[AppServer]]()
_MODEL = pytest.StashKey[FakeResponsesServer]()
_LOG_TAIL_LINES = 40


def pytest_configure(config: pytest.Config) -> None:
    # Debian's bash reads ~/.bashrc in a non-interactive shell it takes for one started by rshd:
    # SHLVL < 2 once it has counted itself, and a socket check that the sandbox's seccomp filter
    # answers with EPERM. A suite started with SHLVL=0 (a backgrounded subshell's last command
    # gets that) then ran the machine's profile in every sandboxed command, and its output
    # (pyenv's "cannot rehash") in theirs: tests must not depend on the profile of who runs them.
    if int(os.environ.get("SHLVL", "0") or "0") < 1:
        os.environ["SHLVL"] = "1"
    for suite in SUITES:
        config.addinivalue_line("markers", f"{suite}: the tests under tests/{suite}/")
    config.stash[_NOT_RUN] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    runnable, not_run = [], config.stash[_NOT_RUN]
    for item in items:
        relative = item.path.relative_to(TESTS).as_posix()
        suite = relative.split("/", 1)[0]
        if suite in SUITES:
            item.add_marker(suite)
        needs = prereqs.unmet(relative)
        if needs:
            not_run[item.nodeid] = needs
        else:
            runnable.append(item)
    if not_run:
        config.hook.pytest_deselected(items=[i for i in items if i.nodeid in not_run])
        items[:] = runnable


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    not_run = config.stash[_NOT_RUN]
    if not_run:
        needs = sorted({need for names in not_run.values() for need in names})
        terminalreporter.write_line(
            f"NOT RUN: {len(not_run)} tests need what this machine lacks ({'; '.join(needs)}); "
            "install it with ./scripts/install-prereqs (as root)",
            red=True,
            bold=True,
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failing test's report carries the tail of each daemon's log and what the fake model served:
    a flake in CI is otherwise a bare timeout, with the daemons' side gone with the machine."""
    report = yield
    if report.failed and call.when == "call":
        for server in item.stash.get(_DAEMONS, []):
            lines = server.stderr().splitlines()[-_LOG_TAIL_LINES:]
            report.sections.append((f"daemon log tail: {server.home}", "\n".join(lines)))
        model = item.stash.get(_MODEL, None)
        if model is not None:
            served = f"served {model.served} model requests; {model.remaining} scripted answers left"
            report.sections.append(("fake model", served))
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller reports
        workeroutput["not_run"] = json.dumps(config.stash[_NOT_RUN])
    elif config.stash.get(_NOT_RUN, {}) and exitstatus == pytest.ExitCode.OK:
        # A run that could not run everything is not a green run.
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist's controller collects nothing itself: each worker says what it could not run."""
    not_run = json.loads(getattr(node, "workeroutput", {}).get("not_run", "{}"))
    node.config.stash[_NOT_RUN].update(not_run)


@pytest.fixture
async def fake_model(request: pytest.FixtureRequest) -> AsyncIterator[FakeResponsesServer]:
    async with FakeResponsesServer() as fake:
        request.node.stash[_MODEL] = fake
        yield fake


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


StartServer = Callable[..., Awaitable[AppServer]]


@pytest.fixture
async def start_server(
    tmp_path: Path, fake_model: FakeResponsesServer, request: pytest.FixtureRequest
) -> AsyncIterator[StartServer]:
    servers: list[AppServer] = []
    request.node.stash[_DAEMONS] = servers

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
