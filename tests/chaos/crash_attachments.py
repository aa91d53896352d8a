"""The crash battery's thread attachments: beside each turn a client attaches a payload to the
thread under a new identity key. After a kill, every attachment whose creation was answered is
listed with its payload and its id, and the thread owns it. An add asked before the thread's
first turn was written is refused ("thread not found", as Codex) and counts for nothing."""

from __future__ import annotations

from typing import Any

from tests.support.rpcclient import RpcClient, RpcErrorReply


class AttachmentAdds:
    def __init__(self) -> None:
        self.answered: dict[str, dict[str, Any]] = {}  # identity key -> the attachment answered

    async def step(self, client: RpcClient, thread_id: str, n: int) -> None:
        key = f"chaos/{n}"
        params = {"threadId": thread_id, "attachmentType": "chaos", "identityKey": key, "payload": {"n": n}}
        try:
            added = await client.request("thread/attachment/add", params)
        except RpcErrorReply as refused:
            assert str(refused.message) == f"thread not found: {thread_id}", refused
            return
        self.answered[key] = added["attachment"]

    async def check(self, client: RpcClient, thread_id: str) -> None:
        listed: dict[str, dict[str, Any]] = {}
        cursor = None
        while True:
            page = await client.request("thread/attachment/list", {"threadId": thread_id, "cursor": cursor})
            listed |= {a["identityKey"]: a for a in page["data"]}
            cursor = page["nextCursor"]
            if cursor is None:
                break
        lost = {key for key, attachment in self.answered.items() if listed.get(key) != attachment}
        assert not lost, f"attachments answered as created, then lost or changed: {sorted(lost)}"
        for key in list(self.answered)[-3:]:
            query = {"attachmentType": "chaos", "identityKey": key}
            owners = await client.request("thread/attachmentOwner/list", query)
            assert owners["data"] == [{"threadId": thread_id, "archived": False}], key
