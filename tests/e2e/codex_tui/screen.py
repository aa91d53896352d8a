"""A program in a tmux pane: type into it, read what its screen shows, wait for text to appear."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

SCREEN_WAIT_S = 30.0
POLL_S = 0.1
RETRY_S = 2.0


def codex_binary() -> Path:
    """The codex 0.169.0 CLI `.ci/run` installs outside the repository (or `$TETHER_CODEX_BIN`)."""
    candidates = [
        os.environ.get("TETHER_CODEX_BIN", ""),
        str(Path.home() / ".cache" / "tether-ci" / "codex" / "node_modules" / ".bin" / "codex"),
        "/opt/codex-ref/node_modules/.bin/codex",
    ]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise AssertionError(
        "the codex CLI is not installed: run `npm install --prefix ~/.cache/tether-ci/codex "
        "@openai/codex@0.169.0` (as .ci/run does) or set TETHER_CODEX_BIN"
    )


def tmux_binary() -> str:
    found = shutil.which("tmux")
    if found is None:
        raise AssertionError("tmux is not installed: apt-get install -y tmux (as .ci/run does)")
    return found


class Screen:
    """One detached tmux session on a tmux server of its own (socket `socket`), ended by `close`."""

    def __init__(self, name: str, socket: Path) -> None:
        self.name = name
        self.socket = socket
        self.tmux = [tmux_binary(), "-S", str(socket)]

    @classmethod
    def start(cls, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], socket: Path) -> Screen:
        screen = cls(f"tether-e2e-{uuid.uuid4().hex[:10]}", socket)
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command = f"cd {shlex.quote(str(cwd))} && exec env {exports} {shlex.join(argv)}"
        # The pane stays after the program exits so that its last screen can be read.
        screen._run("new-session", "-d", "-s", screen.name, "-x", "160", "-y", "50", command)
        screen._run("set-option", "-t", screen.name, "remain-on-exit", "on")
        return screen

    def _run(self, *args: str) -> str:
        done = subprocess.run([*self.tmux, *args], capture_output=True, text=True, check=True, timeout=10)
        return done.stdout

    def text(self) -> str:
        """What the pane shows now, blank lines dropped."""
        shown = self._run("capture-pane", "-p", "-t", self.name)
        return "\n".join(line.rstrip() for line in shown.splitlines() if line.strip())

    def type(self, text: str) -> None:
        self._run("send-keys", "-t", self.name, "-l", text)

    def keys(self, *keys: str) -> None:
        self._run("send-keys", "-t", self.name, *keys)

    async def wait_for(self, text: str, within_s: float = SCREEN_WAIT_S) -> str:
        """Wait until the screen shows `text`; fail with the screen's content when it never does."""
        return await self._until(lambda shown: text in shown, f"{text!r} on screen", within_s)

    async def wait_gone(self, text: str, within_s: float = SCREEN_WAIT_S) -> str:
        return await self._until(lambda shown: text not in shown, f"{text!r} gone", within_s)

    async def press_until_gone(self, key: str, text: str, within_s: float = SCREEN_WAIT_S) -> str:
        """Press `key` until `text` leaves the screen: a key pressed while the TUI is still
        setting up its first screen can be lost, so it is pressed again after `RETRY_S`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within_s
        while True:
            self.keys(key)
            try:
                return await self.wait_gone(text, min(RETRY_S, max(deadline - loop.time(), 0.0)))
            except AssertionError:
                if loop.time() >= deadline:
                    raise

    async def _until(self, ok: object, what: str, within_s: float) -> str:
        assert callable(ok)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within_s
        shown = ""
        while loop.time() < deadline:
            shown = self.text()
            if ok(shown):
                return shown
            await asyncio.sleep(POLL_S)
        raise AssertionError(f"timed out waiting for {what}; the screen shows:\n{shown}")

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True, timeout=10)
        self.socket.unlink(missing_ok=True)
