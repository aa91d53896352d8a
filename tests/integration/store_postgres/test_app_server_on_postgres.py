"""`tether app-server --store postgresql://…`: threads live in PostgreSQL, not in the home.

A daemon on a throwaway cluster (tests/support/postgres.py) runs a turn against the fake model;
a second daemon on another, empty home reads it all back from the same database, and finds it
by search. A store URL that names no store, or a server that cannot be reached, stops the
daemon with a clear error and exit status 2.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.conftest import StartServer
from tests.support.appserver import WAIT_S

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_thread_written_on_postgres_reads_back_from_another_daemon(
    tmp_path: Path,
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    postgres_url: str,
) -> None:
    fake_model.add(script.text_reply("the answer is 42"))
    first = await start_server("--store", postgres_url, home=tmp_path / "one")
    tid = (await first.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = first.mark()
    await first.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "what is it"}]})
    done = await first.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    await first.request("thread/name/set", {"threadId": tid, "name": "the question"})
    assert await first.close() == 0

    # Another home, the store named by the environment instead of the flag.
    second = await start_server(home=tmp_path / "two", env={"TETHER_STORE": postgres_url})
    read = await second.request("thread/read", {"threadId": tid, "includeTurns": True})
    thread = read["thread"]
    assert thread["name"] == "the question"
    assert thread["preview"] == "what is it"
    [turn] = thread["turns"]
    assert turn["status"] == "completed"
    texts = [i.get("text") for i in turn["items"] if i["type"] == "agentMessage"]
    assert texts == ["the answer is 42"]
    found = await second.request("thread/list", {"searchTerm": "ANSWER IS"})
    assert [t["id"] for t in found["data"]] == [tid]
    assert (await second.request("thread/list", {"searchTerm": "no such words"}))["data"] == []
    assert await second.close() == 0
    assert not (tmp_path / "one" / "tether.sqlite").exists()
    assert not (tmp_path / "two" / "tether.sqlite").exists()


async def _refused(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    home.mkdir(parents=True, exist_ok=True)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tether_server", "app-server", *args,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(home), **(env or {})},
    )  # fmt: skip
    async with asyncio.timeout(WAIT_S):
        _, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def test_a_bad_store_url_is_a_configuration_error(tmp_path: Path) -> None:
    status, err = await _refused(tmp_path / "home", "--store", "mysql://root:hunter2@db/tether")
    assert status == 2
    assert "configuration error: store: 'mysql://root:***@db/tether' is not a store URL" in err
    assert "hunter2" not in err
    status, err = await _refused(tmp_path / "home", env={"TETHER_STORE": "sqlite://relative.db"})
    assert status == 2
    assert "configuration error: store: 'sqlite://relative.db' is not a SQLite URL" in err
    assert not (tmp_path / "home" / "tether.sqlite").exists()
    # The config key is read too, and the environment wins over it.
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "config.toml").write_text('store = "ftp://nowhere"\n')
    status, err = await _refused(tmp_path / "conf")
    assert status == 2
    assert "configuration error: store: 'ftp://nowhere' is not a store URL" in err
    status, err = await _refused(tmp_path / "conf", env={"TETHER_STORE": "sqlite://x"})
    assert "configuration error: store: 'sqlite://x' is not a SQLite URL" in err


async def test_an_unreachable_postgres_stops_the_daemon_with_its_reason(
    tmp_path: Path, postgres_url: str
) -> None:
    # A database that does not exist on a server that does: the server's refusal, named.
    # The cluster trusts loopback, so the password is ignored; it must not be shown either.
    missing = postgres_url.rsplit("/", 1)[0].replace("//tether@", "//tether:hunter2@") + "/no_such_db"
    status, err = await _refused(tmp_path / "home", "--store", missing)
    assert status == 2
    assert "database postgresql://tether@127.0.0.1:" in err
    assert 'database "no_such_db" does not exist' in err
    assert "hunter2" not in err
