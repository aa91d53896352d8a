"""A daemon killed while writing auth.json or mcp_oauth.json leaves its temporary copy (0600, holding
the key or the tokens) beside it; the next daemon on that home deletes it, unless its writer still
runs."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tests.conftest import StartApp


async def _pid_of_a_process(*, ended: bool) -> tuple[int, asyncio.subprocess.Process]:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "import sys; sys.stdin.read()",
                                                stdin=asyncio.subprocess.PIPE)  # fmt: skip
    if ended:
        assert proc.stdin is not None
        proc.stdin.close()
        await proc.wait()
    return proc.pid, proc


async def test_a_killed_writers_copy_of_the_credentials_is_removed(
    start_app: StartApp, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    stored = {"auth_mode": "apikey", "OPENAI_API_KEY": "sk-kept-0123456789", "tokens": None}
    home.joinpath("auth.json").write_text(json.dumps(stored))
    dead, _ = await _pid_of_a_process(ended=True)
    alive, running = await _pid_of_a_process(ended=False)
    orphans = [home / f".{name}.{dead}.tmp" for name in ("auth.json", "mcp_oauth.json")]
    in_flight = [home / f".{name}.{alive}.tmp" for name in ("auth.json", "mcp_oauth.json")]
    for copy in (*orphans, *in_flight):
        copy.write_text('{"OPENAI_API_KEY": "sk-half')
        copy.chmod(0o600)
    try:
        server = await start_app("-c", 'model_providers.mock.env_key="OPENAI_API_KEY"', home=home,
                                 env={"OPENAI_API_KEY": ""})  # fmt: skip
        account = await server.request("account/read", {})
    finally:
        assert running.stdin is not None
        running.stdin.close()
        await running.wait()

    assert [copy.name for copy in orphans if copy.exists()] == []
    # Their writer may still rename them over the files.
    assert [copy.name for copy in in_flight if copy.exists()] == [copy.name for copy in in_flight]
    assert account["account"] == {"type": "apiKey"}
