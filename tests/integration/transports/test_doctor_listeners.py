"""`tether doctor` sees a daemon listening on the control socket."""

from __future__ import annotations

import json

from tests.integration.transports.conftest import StartSocketServer
from tests.support.cli import run_tether


async def test_doctor_reports_the_daemon_on_the_control_socket(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "unix://")

    ran = await run_tether(server.home, "doctor", "--json", within_s=90)

    listeners = next(c for c in json.loads(ran.stdout)["checks"] if c["name"] == "listeners")
    assert listeners["status"] == "ok"
    assert listeners["summary"] == f"a daemon listens on unix://{server.unix_path}"
    assert listeners["details"]["mode"] == "0600"
