"""The crash battery's thread sections: beside each turn a client creates a section and moves the
thread into it. After a kill, every section whose creation was answered is listed, and the thread
sits in the section of its last answered move or of a later one (the daemon may have written a move
whose answer the kill swallowed), never in an older one."""

from __future__ import annotations

from tests.support.rpcclient import RpcClient


class SectionMoves:
    def __init__(self) -> None:
        self.created: set[str] = set()  # answered creations
        self.targets: list[str] = []  # move targets, in the order the moves were asked
        self.last_answered = -1  # index in `targets` of the last answered move

    async def step(self, client: RpcClient, thread_id: str, n: int) -> None:
        """Create a section, then move the thread into it (the thread's requests run in order)."""
        section = (await client.request("threadSection/create", {"name": f"chaos {n}"}))["section"]["id"]
        self.created.add(section)
        index = len(self.targets)
        self.targets.append(section)
        await client.request("thread/section/move", {"threadId": thread_id, "sectionId": section})
        self.last_answered = max(self.last_answered, index)

    async def check(self, client: RpcClient, thread_id: str) -> None:
        listed: set[str] = set()
        cursor = None
        while True:
            page = await client.request("threadSection/list", {"cursor": cursor, "limit": 50})
            listed |= {s["id"] for s in page["data"]}
            cursor = page["nextCursor"]
            if cursor is None:
                break
        lost = self.created - listed
        assert not lost, f"sections answered as created, then lost: {sorted(lost)}"
        if self.last_answered < 0:
            return
        section = (await client.request("thread/read", {"threadId": thread_id}))["thread"]["section"]
        assert section is not None, "an answered move into a section was lost"
        later = self.targets[self.last_answered :]
        assert section["id"] in later, f"the thread went back to an older section: {section['id']}"
