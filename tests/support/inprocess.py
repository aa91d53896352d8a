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
from tether_server.cli import _parser
from tether_server.commands.app_server import serve_options as _serve_options
from tether_server.config import load_config, prepare_home
from tether_server.serve_options import private_paths


class InProcessServer(MemoryClient):
    """One client of an `App` running in this process, as `AppServer` is one client of a daemon."""

    def __init__(self, app: App, *, outbox_capacity: int) -> None:
        assert app.running is not None
        super().__init__(app.running.dispatcher, outbox_capacity=outbox_capacity)
        self.app = app
        self.home = app.home
        self._closed = False

    @classmethod
    async def start(cls, home: Path, args: Sequence[str] = ()) -> InProcessServer:
        """Build and start the app as `tether app-server ARGS` does (the CLI's own parser, options and
        config loading), then connect. Only stdio-like serving applies: listeners need the subprocess.
        """
        parsed = _parser().parse_args(["app-server", *args])
        if parsed.tool is not None or parsed.listen not in (None, ["stdio://"]):
            raise ValueError(f"{list(args)}: not servable in process; use the start_server fixture")
        prepare_home(home)
        options = _serve_options(parsed, home)
        loaded = load_config(home, parsed.overrides, strict=parsed.strict_config, profile=parsed.profile)
        app = App(
            loaded,
            home,
            max_inflight=parsed.max_inflight_requests,
            max_inflight_per_connection=parsed.max_inflight_per_connection,
            hidden_paths=private_paths(home, options),
        )
        await app.start()
        return cls(app, outbox_capacity=options.outbox_capacity)

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
