"""An MCP server for the tests, on the `mcp` SDK: run as `python mcp_fixture_server.py [options]`.

Options: `--http PORT` serves streamable HTTP on loopback instead of stdio; `--tools N` adds N
generated read-only tools; `--hang` never answers the handshake; `--slow S` answers it only after S
seconds; `--log PATH` appends each call; `--echo` adds a tool answering with its `text`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel


class Entry(BaseModel):
    key: str
    value: str


class Answer(BaseModel):
    color: str


def build(args: argparse.Namespace) -> MCPServer:
    app = MCPServer("fixture", version="1.2.3")
    log = Path(args.log) if args.log else None

    def note(text: str) -> None:
        if log is not None:
            with log.open("a") as f:
                f.write(text + "\n")

    @app.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def lookup(key: str, ctx: Context) -> Entry:
        """Look a key up in the fixture's table."""
        await ctx.report_progress(1, 2, f"looking up {key}")
        note(f"lookup {key}")
        return Entry(key=key, value=key.upper())

    @app.tool(annotations=ToolAnnotations(destructiveHint=True))
    def wipe(target: str) -> str:
        """Delete everything under a target."""
        note(f"wipe {target}")
        return f"wiped {target}"

    @app.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def ask_color(ctx: Context) -> str:
        """Ask the user for a color."""
        answer = await ctx.elicit("Which color?", Answer)
        note(f"ask_color {answer.action}")
        if answer.action == "accept":
            return f"color={answer.data.color}"
        return f"no color ({answer.action})"

    @app.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def crash() -> str:
        """Exit the server process."""
        note("crash")
        os._exit(3)

    @app.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def big() -> str:
        """A very long answer."""
        return "x" * 100_000

    @app.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def huge(mib: int) -> str:
        """An answer of `mib` MiB, its first and last lines marked."""
        size = mib * 1024 * 1024
        return "FIRST\n" + "y" * (size - 11) + "\nLAST"

    if args.echo:

        @app.tool(annotations=ToolAnnotations(readOnlyHint=True))
        def echo(text: str) -> str:
            """Answer with the text given (a hook's answer, for the hook tests)."""
            note(f"echo {text}")
            return text

    _extras(app, args.tools)
    return app


def _extras(app: MCPServer, count: int) -> None:
    @app.resource("fixture://readme", mime_type="text/plain")
    def readme() -> str:
        """The fixture's readme."""
        return "fixture readme"

    for index in range(count):
        name = f"gen_{index:04d}"

        def make(i: int) -> Callable[[int], str]:
            def generated(n: int) -> str:
                return f"generated {i} got {n}"

            return generated

        app.add_tool(make(index), name=name, description=f"Generated tool number {index} about topic{index}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=0)
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--slow", type=float, default=0.0)
    parser.add_argument("--log", default="")
    parser.add_argument("--echo", action="store_true")
    args = parser.parse_args()
    if args.hang:
        # Never speak: the client's handshake waits until its startup timeout.
        sys.stdin.read()
        time.sleep(3600)
        return
    if args.slow:
        # A server that takes a while to come up: the handshake waits in the pipe meanwhile.
        time.sleep(args.slow)
    app = build(args)
    if args.http:
        app.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        app.run("stdio")


if __name__ == "__main__":
    main()
