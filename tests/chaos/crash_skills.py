"""The crash battery's skill settings: beside each turn a client disables a skill by name with
`skills/config/write`. After a kill, config.toml still parses and holds every disable that was
answered (and a later one the kill cut off may be there too), each as Codex writes it."""

from __future__ import annotations

from tests.support.rpcclient import RpcClient


class SkillDisables:
    def __init__(self) -> None:
        self.asked: set[str] = set()
        self.answered: set[str] = set()

    async def step(self, client: RpcClient, n: int) -> None:
        name = f"chaos-skill-{n}"
        self.asked.add(name)
        answer = await client.request("skills/config/write", {"name": name, "enabled": False})
        assert answer == {"effectiveEnabled": False}
        self.answered.add(name)

    async def check(self, client: RpcClient) -> None:
        config = (await client.request("config/read", {}))["config"]
        entries = ((config.get("skills") or {}).get("config")) or []
        assert all(entry == {"name": entry.get("name"), "enabled": False} for entry in entries), entries
        names = {entry["name"] for entry in entries}
        assert self.answered <= names, f"answered disables lost: {sorted(self.answered - names)[:5]}"
        assert names <= self.asked, f"disables no one asked for: {sorted(names - self.asked)[:5]}"
