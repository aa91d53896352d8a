"""A stdio MCP server that takes `SECONDS` (argv[1]) to come up, with one read-only tool `lookup`:
the first-turn MCP case's server (`cases/external_tools.py`)."""

from __future__ import annotations

import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations


def main() -> None:
    # The client's handshake waits in the pipe meanwhile.
    time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 0.0)
    app = MCPServer("slow", version="1.0.0")

    @app.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def lookup(key: str) -> str:
        """Look a key up in the slow server's table."""
        return key.upper()

    app.run("stdio")


if __name__ == "__main__":
    main()
