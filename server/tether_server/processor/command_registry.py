"""Running `command/exec` and `process/spawn` processes, by the connection that started them and the
id the client gave them (`processId`, `processHandle`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from tether_protocol.v2.command import CommandExecResponse
from tether_server.errors import InvalidRequest
from tether_server.tools.exec.standalone import StandaloneProcess


@dataclass
class RunningCommand:
    process: StandaloneProcess
    # Waits for the exit; its result is the command/exec answer (process/spawn sends a notification).
    task: asyncio.Task[CommandExecResponse] | asyncio.Task[None] | None = None


class ProcessTable:
    """Running processes by connection id and the client's id for them.

    Args:
        missing: the error for an id with no running process (`{}` is the id).
    """

    def __init__(self, missing: str) -> None:
        self._by_conn: dict[int, dict[str, RunningCommand]] = {}
        self._missing = missing

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
            raise InvalidRequest(self._missing.format(process_id))
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


class CommandExecs(ProcessTable):
    """`command/exec` processes by processId; `spawned` holds the `process/spawn` ones by handle.

    One object, so that the one disconnect path (`close_connection`) ends both.
    """

    def __init__(self) -> None:
        super().__init__('no active command/exec for process id "{}"')
        self.spawned = ProcessTable('no active process for process handle "{}"')

    async def close_connection(self, conn_id: int) -> None:
        await asyncio.gather(super().close_connection(conn_id), self.spawned.close_connection(conn_id))
