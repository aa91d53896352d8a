"""Client strings in the console log cannot drive the operator's terminal or forge lines (issue 24
item 13e): a real daemon over stdio, its stderr in console format."""

from __future__ import annotations

import json

from tests.conftest import StartServer

CONSOLE = {"TETHER_LOG_FORMAT": "console", "TETHER_LOG": "debug", "NO_COLOR": "1"}
# Clear the screen, paint red, set the window title (OSC ... BEL), an 8-bit CSI.
HOSTILE = "evil\x1b[2J\x1b[31mRED\x1b]0;pwned\x07\x9b1mC1"


async def test_control_characters_from_a_client_are_escaped_in_console_logs(
    start_server: StartServer,
) -> None:
    server = await start_server(env=CONSOLE)
    await server.send_raw(json.dumps({"jsonrpc": "2.0", "method": HOSTILE, "params": {}}).encode() + b"\n")
    forged = "x\n2026-01-01T00:00:00.000000Z [error    ] forged.line"
    await server.send_raw(json.dumps({"jsonrpc": "2.0", "method": forged, "params": {}}).encode() + b"\n")
    await server.request("thread/list", {})  # answered after both notifications were handled
    await server.close(check=False)
    log = server.stderr_path.read_bytes()
    line = next(line for line in log.splitlines() if b"evil" in line)
    assert b"\x1b" not in log and b"\x07" not in log and "\x9b".encode() not in log, line
    assert rb"evil\x1b[2J\x1b[31mRED\x1b]0;pwned\x07\x9b1mC1" in line
    assert not [line for line in log.splitlines() if line.startswith(b"2026-01-01T00:00:00")]
