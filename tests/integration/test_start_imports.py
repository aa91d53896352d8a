"""A daemon's first `thread/start` does not wait for libraries only later requests use (issue 31).

Spawn → the first `thread/start` answered is mostly import time. Each library below cost tens to
hundreds of milliseconds there before it was moved to the request that needs it (the mcp SDK
alone, reached through `mcpServer/oauth/login`, was about half of all imports); a module-level
import anywhere on the start path brings it back unnoticed, so the real daemon is run with an
audit hook (a `sitecustomize` on its PYTHONPATH) that records every package it imports.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.appserver import AppServer, mock_provider_args
from tether_testing.fake_responses import FakeResponsesServer

# What the daemon must not import to serve initialize + thread/start (and shut down): each is
# loaded by the request or listener that needs it (MCP servers, WebSocket and fleet listeners,
# config writes, PostgreSQL, OpenTelemetry, the TUI and SDK clients). httpx is not listed: the
# model provider loads it in the background once a thread is opened (warm_up), which may or may
# not happen before this daemon exits.
NOT_AT_START = (
    "mcp",
    "websockets",
    "starlette",
    "uvicorn",
    "sse_starlette",
    "jwt",
    "cryptography",
    "tomlkit",
    "opentelemetry",
    "psycopg",
    "psycopg_pool",
    "textual",
    "tether_client",
    "tether_tui",
    "pathspec",  # the file lister's gitignore rules: fuzzyFileSearch
)

# Tether's own modules that serve only other method families: their handlers (and, with them, the
# machinery those pull in) and their wire models load with the first request of one of their methods.
OURS_NOT_AT_START = (
    "tether_server.processor.methods.plugin",
    "tether_server.processor.methods.marketplace",
    "tether_server.processor.methods.fuzzy",
    "tether_server.processor.methods.fs",
    "tether_server.processor.methods.thread_queue",
    "tether_server.processor.methods.project",
    # The method table names its models; they load with the first request or notification using them.
    "tether_protocol.v2.plugins",
    "tether_protocol.v2.apps",
    "tether_protocol.v2.fuzzy",
    "tether_protocol.v2.thread_timeline",
    "tether_protocol.v2.external_agent",
    "tether_protocol.v2.config",
    "tether_protocol.v2.account",  # ChatGPT token renewal's models, with its first renewal
)

_HOOK = """\
import os, sys

_fd = os.open(os.environ["TETHER_TEST_IMPORT_LOG"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
_seen = set()


def _record(event, args):
    if event == "import":
        top = args[0].partition(".")[0]
        if top not in _seen:
            _seen.add(top)
            os.write(_fd, (top + "\\n").encode())


class _Ours:
    # importlib.import_module (how Tether loads some of its modules on first use) raises no audit
    # event, but every import of a module not loaded yet asks the finders: Tether's own modules are
    # recorded by their full name there.
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.startswith("tether_"):
            os.write(_fd, (name + "\\n").encode())
        return None


sys.addaudithook(_record)
sys.meta_path.insert(0, _Ours)
"""


async def test_the_first_thread_start_loads_no_library_that_only_later_requests_use(
    tmp_path: Path, workdir: Path, fake_model: FakeResponsesServer
) -> None:
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_HOOK)
    log = tmp_path / "imports.log"
    path = os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH", "")) if p)
    env = {"PYTHONPATH": path, "TETHER_TEST_IMPORT_LOG": str(log)}
    # The fake model's address: whatever the daemon may contact stays on loopback.
    server = await AppServer.start(tmp_path / "home", mock_provider_args(fake_model.base_url), env=env)
    await server.initialize()
    started = await server.request("thread/start", {"cwd": str(workdir)})
    assert started["thread"]["cwd"] == str(workdir)
    assert await server.close() == 0

    imported = set(log.read_text().split())
    assert "tether_server.app" in imported  # the hook saw the daemon's own imports
    assert sorted(imported.intersection(NOT_AT_START)) == []
    assert "tether_server.processor.methods.thread" in imported
    assert sorted(imported.intersection(OURS_NOT_AT_START)) == []
