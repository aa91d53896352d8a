"""The crash battery's queued messages: a side thread, written in the first round and never loaded
again, takes a queued message beside each turn (and every third step drops the previous one), on
a client of its own that opted into the experimental API. Queued on a thread that is not loaded, a
message waits, so the queue only grows and shrinks by what was asked. After a kill, every message
whose queuing was answered is queued, in order, unless its deletion was asked; none whose deletion
was answered is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


class QueueAdds:
    def __init__(self) -> None:
        self.thread_id = ""
        self.ready = False  # the side thread is written and, after a restart, not loaded
        self.answered: list[str] = []  # queued ids, in the order their adds were answered
        self.delete_asked: set[str] = set()
        self.deleted: set[str] = set()

    async def prepare(self, client: RpcClient, workdir: Path, fake: FakeResponsesServer) -> None:
        """Write the side thread (one turn) in the first round; from the next round on it is idle
        and not loaded, so queued messages wait."""
        if self.thread_id:
            self.ready = True
            return
        self.thread_id = (await client.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
        fake.add(script.text_reply("side"))
        mark = client.mark()
        await client.request(
            "turn/start", {"threadId": self.thread_id, "input": [{"type": "text", "text": "side"}]}
        )
        await client.notification("turn/completed", after=mark)

    async def step(self, client: RpcClient, n: int) -> None:
        if not self.ready:
            return
        params = {
            "threadId": self.thread_id,
            "clientUserMessageId": f"c{n}",
            "input": [{"type": "text", "text": f"q{n}"}],
        }
        queued = (await client.request("thread/queue/add", params))["queuedSubmission"]["id"]
        self.answered.append(queued)
        if n % 3 == 0 and len(self.answered) > 1:
            victim = self.answered[-2]
            self.delete_asked.add(victim)
            await client.request(
                "thread/queue/delete", {"threadId": self.thread_id, "queuedSubmissionId": victim}
            )
            self.deleted.add(victim)

    async def check(self, client: RpcClient) -> None:
        if not self.thread_id:
            return
        listed: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = await client.request("thread/queue/list", {"threadId": self.thread_id, "cursor": cursor})
            listed.extend(page["data"])
            cursor = page["nextCursor"]
            if cursor is None:
                break
        ids = [q["id"] for q in listed]
        kept = [q for q in self.answered if q not in self.delete_asked]
        lost = [q for q in kept if q not in ids]
        assert not lost, f"queued messages answered, then lost: {lost}"
        assert [q for q in ids if q in kept] == kept, "the queue lost its order"
        back = self.deleted & set(ids)
        assert not back, f"deleted queued messages came back: {sorted(back)}"
