"""The crash battery's projects: beside each turn a client creates a project under a new
idempotency key (on the experimental client of `crash_queue`). After a kill, every project whose
creation was answered is listed as answered (recency aside), and creating it again with its key
answers the same project rather than a second one."""

from __future__ import annotations

from typing import Any

from tests.support.rpcclient import RpcClient


class ProjectCreates:
    def __init__(self) -> None:
        self.answered: dict[str, dict[str, Any]] = {}  # idempotency key -> the project answered

    async def step(self, client: RpcClient, n: int) -> None:
        key = f"chaos-{n}"
        params = {"idempotencyKey": key, "name": f"chaos {n}", "roots": [], "metadata": {"n": str(n)}}
        self.answered[key] = (await client.request("project/create", params))["project"]

    async def check(self, client: RpcClient) -> None:
        listed: dict[str, dict[str, Any]] = {}
        cursor = None
        while True:
            page = await client.request("project/list", {"cursor": cursor})
            listed |= {p["id"]: p for p in page["data"]}
            cursor = page["nextCursor"]
            if cursor is None:
                break
        lost = sorted(key for key, p in self.answered.items() if listed.get(p["id"]) != p)
        assert not lost, f"projects answered as created, then lost or changed: {lost}"
        assert len({p["position"] for p in listed.values()}) == len(listed), "two projects share a position"
        for key in list(self.answered)[-2:]:
            params = {"idempotencyKey": key, "name": "again", "roots": []}
            again = (await client.request("project/create", params))["project"]
            assert again == self.answered[key], key
