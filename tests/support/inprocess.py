"""`AppServer`'s in-process twin: the app `tether app-server` builds, served over the memory transport.

Same client API (`request`, `notification`, `mark`, `since`, …) and the same reference-schema
checks at teardown; the store is the real SQLite file in `home`, so a second server on the same
home is a restart. What it cannot do is what needs a process: be killed, read stdout or stderr,
close pipes. Tests of those keep `start_server`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tests.support.memory import MemoryClient
from tether_server.app import App
from tether_server.config import load_config
from tether_server.serve import private_paths


def _parse(args: Sequence[str]) -> tuple[list[str], int]:
    """The `app-server` flags that make sense in process: `-c key=value` and `--max-inflight-requests`."""
    overrides: list[str] = []
    max_inflight = 1024
    rest = list(args)
    while rest:
        flag, value = rest.pop(0), rest.pop(0) if rest else ""
        if flag in ("-c", "--config"):
            overrides.append(value)
        elif flag == "--max-inflight-requests":
            max_inflight = int(value)
        else:
            raise ValueError(f"{flag}: not supported in process; use the start_server fixture")
    return overrides, max_inflight


class InProcessServer(MemoryClient):
    """One client of an `App` running in this process, as `AppServer` is one client of a daemon."""

    def __init__(self, app: App) -> None:
        assert app.running is not None
        super().__init__(app.running.dispatcher)
        self.app = app
        self.home = app.home
        self._closed = False

    @classmethod
    async def start(cls, home: Path, args: Sequence[str] = ()) -> InProcessServer:
        """Build and start the app as the CLI does (config from `home` plus `args`), then connect."""
        home.mkdir(parents=True, exist_ok=True)
        overrides, max_inflight = _parse(args)
        app = App(
            load_config(home, overrides),
            home,
            max_inflight=max_inflight,
            hidden_paths=private_paths(home),
        )
        await app.start()
        return cls(app)

    async def close(self, *, check: bool = True) -> int:
        """End of input, as closing a daemon's stdin: answers are sent, then the app shuts down."""
        if not self._closed:
            self._closed = True
            try:
                await super().close()
            finally:
                await self.app.close()
        if check:
            self.check()
        return 0
