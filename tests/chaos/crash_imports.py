"""The crash battery's import history: beside each turn a client records an external-agent import.
After a kill, every import whose recording was answered is in the history (the file is rewritten
whole on each record, so a kill mid-write must leave the old history or the new one, never a
damaged file that reads as empty)."""

from __future__ import annotations

from tests.support.rpcclient import RpcClient


class ImportRecords:
    def __init__(self) -> None:
        self.answered: set[str] = set()

    async def step(self, client: RpcClient, n: int) -> None:
        params = {"providerId": f"chaos {n}", "itemTypeResults": []}
        answer = await client.request("externalAgentConfig/import/recordHistory", params)
        self.answered.add(answer["importId"])

    async def check(self, client: RpcClient) -> None:
        history = await client.request("externalAgentConfig/import/readHistories")
        lost = self.answered - {h["importId"] for h in history["data"]}
        assert not lost, f"imports answered as recorded, then lost: {sorted(lost)}"
