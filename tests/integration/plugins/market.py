"""A test marketplace: a real git repository served over loopback HTTP (git's "dumb" protocol).

Codex accepts `https://`, `http://`, `ssh://` and scp-like URLs for a git marketplace but no
`file://`, so the test serves the bare repository the way a static web host would.
"""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.integration.tools_ext.mcp_support import FIXTURE

MARKET = "test-market"
PLUGIN = "demo"
SERVER = "demo-fx"
SKILL_DESCRIPTION = "Greets the user the way the demo plugin likes"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout.strip()


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


def plugin_entry(name: str, path: str) -> dict[str, Any]:
    return {
        "name": name,
        "source": {"source": "local", "path": path},
        "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
        "category": "Productivity",
    }


def build_marketplace(root: Path, plugins: list[dict[str, Any]] | None = None) -> Path:
    """A marketplace folder holding the `demo` plugin: one skill, one MCP server, one hook."""
    write_json(
        root / ".agents/plugins/marketplace.json",
        {
            "name": MARKET,
            "interface": {"displayName": "Test Market"},
            "plugins": plugins if plugins is not None else [plugin_entry(PLUGIN, "./plugins/demo")],
        },
    )
    plugin = root / "plugins" / PLUGIN
    write_json(
        plugin / ".codex-plugin/plugin.json",
        {
            "name": PLUGIN,
            "version": "0.1.0",
            "description": "Demo plugin",
            "skills": "./skills/",
            "mcpServers": "./.mcp.json",
            "hooks": "./hooks.json",
            "interface": {"displayName": "Demo", "shortDescription": "short", "capabilities": ["Read"]},
        },
    )
    skill = plugin / "skills/hello/SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text(f"---\nname: hello\ndescription: {SKILL_DESCRIPTION}\n---\nSay hello.\n")
    write_json(
        plugin / ".mcp.json", {"mcpServers": {SERVER: {"command": sys.executable, "args": [str(FIXTURE)]}}}
    )
    write_json(
        plugin / "hooks.json",
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}},
    )
    return root


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class GitMarket:
    """The marketplace's working repository, its bare copy, and the URL it is served at."""

    def __init__(self, work: Path, bare: Path, url: str) -> None:
        self.work, self.bare, self.url = work, bare, url

    def publish(self, message: str) -> None:
        """Commit what changed in the working repository and make it visible over HTTP."""
        git(self.work, "add", "-A")
        git(self.work, "commit", "-q", "-m", message)
        git(self.work, "push", "-q", str(self.bare), "HEAD:main")
        git(self.bare, "update-server-info")


@contextmanager
def served_marketplace(tmp: Path) -> Iterator[GitMarket]:
    work = build_marketplace(tmp / "market-src")
    git(work, "init", "-q", "-b", "main")
    served = tmp / "served"
    bare = served / "market.git"
    served.mkdir()
    git(served, "init", "-q", "--bare", "-b", "main", str(bare))
    market = GitMarket(work, bare, "")
    market.publish("first")
    handler = functools.partial(_Quiet, directory=str(served))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    market.url = f"http://127.0.0.1:{httpd.server_address[1]}/market.git"
    try:
        yield market
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
