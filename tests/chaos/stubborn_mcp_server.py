"""An MCP server that will not go: it ignores SIGTERM, outlives the end of its stdin, and has a child
that ignores SIGTERM too. Run as `python stubborn_mcp_server.py MARKER`; MARKER is in the command
line of both processes, so a test finds them by it in /proc.

Tools: `ping` answers, `hang` never does.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time

from mcp.server.mcpserver import MCPServer

IGNORING_CHILD = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(10**6)"


def main() -> None:
    marker = sys.argv[1]
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    subprocess.Popen([sys.executable, "-c", IGNORING_CHILD, marker], stdin=subprocess.DEVNULL)
    app = MCPServer("stubborn", version="0.0.1")

    @app.tool()
    def ping() -> str:
        """Answer at once."""
        return "pong"

    @app.tool()
    async def hang() -> str:
        """Never answer."""
        await asyncio.Event().wait()
        return "unreachable"

    app.run("stdio")
    while True:  # stdin is closed: stay anyway, until SIGKILL
        time.sleep(3600)


if __name__ == "__main__":
    main()
