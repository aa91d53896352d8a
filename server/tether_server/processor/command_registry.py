"""Running `command/exec` processes, by the connection that started them and their `processId`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from tether_protocol.v2.command import CommandExecResponse
from tether_server.errors import InvalidRequest
from tether_server.tools.exec.standalone import StandaloneProcess


@dataclass
class RunningCommand:
    process: StandaloneProcess
    task: asyncio.Task[CommandExecResponse] | None = None  # waits for the exit; its result is the answer


class CommandExecs:
    """Running `command/exec` processes by connection id and processId."""

    def __init__(self) -> None:
        self._by_conn: dict[int, dict[str, RunningCommand]] = {}

    def add(self, conn_id: int, process_id: str, running: RunningCommand) -> None:
        self._by_conn.setdefault(conn_id, {})[process_id] = running

    def has(self, conn_id: int, process_id: str) -> bool:
        return process_id in self._by_conn.get(conn_id, {})

    def get(self, conn_id: int, process_id: str) -> StandaloneProcess:
        """The connection's process `process_id`.

        Raises:
            InvalidRequest: no such running process on this connection.
        """
        running = self._by_conn.get(conn_id, {}).get(process_id)
        if running is None:
            raise InvalidRequest(f'no active command/exec for process id "{process_id}"')
        return running.process

    def remove(self, conn_id: int, process_id: str) -> None:
        processes = self._by_conn.get(conn_id, {})
        processes.pop(process_id, None)
        if not processes:
            self._by_conn.pop(conn_id, None)

    async def close_connection(self, conn_id: int) -> None:
        """Kill every process the connection started and wait until each is reaped."""
        running = list(self._by_conn.get(conn_id, {}).values())
        for entry in running:
            entry.process.kill()
        tasks = [entry.task for entry in running if entry.task is not None]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
