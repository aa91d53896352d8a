"""Thread lifecycle: start, read, list, name, archive, unarchive, delete, resume after restart."""

from __future__ import annotations

from typing import Any

from conformance.client import Client
from conformance.context import CaseContext
from conformance.manifest import case
from conformance.shape import error_code, items, of_method
from tether_testing import script


async def listed(client: Client, thread_id: str, **params: Any) -> dict[str, Any] | None:
    """The thread's row in `thread/list`, or None."""
    result = await client.request("thread/list", params)
    return next((t for t in result["data"] if t["id"] == thread_id), None)


@case(
    "thread.start-and-read",
    requires=[
        "thread.start-result",
        "thread.started-after-result",
        "thread.sandbox-projection",
        "thread.loaded-list",
        "thread.read",
        "thread.list-unmaterialized-hidden",
        "thread.ephemeral",
    ],
)
async def start_and_read(ctx: CaseContext) -> None:
    """A fresh thread: its start result, its announcement, and how it reads and lists."""
    client = await ctx.ready_client()
    mark = client.mark()
    result = await client.request("thread/start", {"cwd": str(ctx.workdir)})
    thread = result["thread"]
    shape = (thread["status"], thread["turns"], thread["preview"], result["cwd"])
    ctx.expect(
        "thread.start-result", shape, ({"type": "idle"}, [], "", str(ctx.workdir)), "status/turns/preview/cwd"
    )
    present = [k for k in ("model", "modelProvider", "approvalPolicy", "sandbox") if result.get(k)]
    ctx.expect(
        "thread.start-result", present, ["model", "modelProvider", "approvalPolicy", "sandbox"], "settings"
    )
    started = await client.notification("thread/started", after=mark)
    log = client.since(mark)
    reply_at = next(i for i, m in enumerate(log) if m.get("result") is result)
    ctx.check(
        "thread.started-after-result",
        started["params"]["thread"]["id"] == thread["id"] and log.index(started) > reply_at,
        f"thread/started {started['params']['thread']['id']} at {log.index(started)}, reply at {reply_at}",
    )
    ctx.expect("thread.sandbox-projection", result["sandbox"]["type"], "readOnly", "default sandbox")
    for mode, kind in (("workspace-write", "workspaceWrite"), ("danger-full-access", "dangerFullAccess")):
        other = await client.request("thread/start", {"cwd": str(ctx.workdir), "sandbox": mode})
        ctx.expect("thread.sandbox-projection", other["sandbox"]["type"], kind, f"sandbox {mode}")
    loaded = await client.request("thread/loaded/list", {})
    ctx.check("thread.loaded-list", thread["id"] in loaded["data"], f"loaded {loaded}")
    read = await client.request("thread/read", {"threadId": thread["id"]})
    ctx.check("thread.read", read["thread"]["id"] == thread["id"] and "readState" in read, f"read {read}")
    ctx.check("thread.list-unmaterialized-hidden", await listed(client, thread["id"]) is None, "listed")
    ephemeral = (await client.request("thread/start", {"cwd": str(ctx.workdir), "ephemeral": True}))["thread"]
    ctx.expect("thread.ephemeral", (ephemeral["ephemeral"], ephemeral.get("path")), (True, None), "thread")


@case(
    "thread.lifecycle",
    requires=[
        "thread.list-after-turn",
        "thread.read-include-turns",
        "thread.name-set",
        "thread.name-empty-rejected",
        "thread.archive",
        "thread.unarchive",
        "thread.delete",
        "thread.resume-archived-rejected",
        "thread.delete-twice-rejected",
    ],
    model=[script.text_reply("Noted.", deltas=2)],
)
async def lifecycle(ctx: CaseContext) -> None:
    """One thread through a turn, a rename, archive, unarchive and delete."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    await ctx.run_turn(client, thread_id, "first question")
    row = await listed(client, thread_id)
    ctx.expect("thread.list-after-turn", row and row["preview"], "first question", "listed preview")
    read = await client.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    turns = read["thread"]["turns"]
    shape = [(t["status"], [i["type"] for i in t["items"]]) for t in turns]
    ctx.expect("thread.read-include-turns", shape, [("completed", ["userMessage", "agentMessage"])], "turns")
    await rename(ctx, client, thread_id)
    await archive_cycle(ctx, client, thread_id)
    mark = client.mark()
    deleted = await client.request("thread/delete", {"threadId": thread_id})
    note = await client.notification("thread/deleted", after=mark)
    gone = await client.call("thread/read", {"threadId": thread_id})
    ctx.check(
        "thread.delete",
        deleted == {} and note["params"]["threadId"] == thread_id and "error" in gone,
        f"delete {deleted}, read afterwards {gone}",
    )
    twice = await client.call("thread/delete", {"threadId": thread_id})
    ctx.expect("thread.delete-twice-rejected", error_code(twice), -32600, "second delete")


async def rename(ctx: CaseContext, client: Client, thread_id: str) -> None:
    """`thread/name/set`, then an empty name."""
    mark = client.mark()
    result = await client.request("thread/name/set", {"threadId": thread_id, "name": "Conformance thread"})
    note = await client.notification("thread/name/updated", after=mark)
    ctx.expect(
        "thread.name-set",
        (result, note["params"].get("threadId"), note["params"].get("threadName")),
        ({}, thread_id, "Conformance thread"),
        "result and notification",
    )
    empty = await client.call("thread/name/set", {"threadId": thread_id, "name": ""})
    ctx.expect("thread.name-empty-rejected", error_code(empty), -32600, "empty name")


async def archive_cycle(ctx: CaseContext, client: Client, thread_id: str) -> None:
    """Archive, list both ways, unarchive, list again."""
    mark = client.mark()
    result = await client.request("thread/archive", {"threadId": thread_id})
    note = await client.notification("thread/archived", after=mark)
    hidden = await listed(client, thread_id) is None
    shown = await listed(client, thread_id, archived=True) is not None
    resumed = await client.call("thread/resume", {"threadId": thread_id})
    message = str(resumed.get("error", {}).get("message"))
    ctx.check(
        "thread.resume-archived-rejected",
        error_code(resumed) == -32600 and "archived" in message,
        f"resume of an archived thread: {str(resumed)[:300]}",
    )
    ctx.expect(
        "thread.archive",
        (result, note["params"]["threadId"], hidden, shown),
        ({}, thread_id, True, True),
        "(result, archived id, hidden by default, listed as archived)",
    )
    mark = client.mark()
    result = await client.request("thread/unarchive", {"threadId": thread_id})
    note = await client.notification("thread/unarchived", after=mark)
    back = await listed(client, thread_id) is not None
    ctx.expect(
        "thread.unarchive",
        (result["thread"]["id"], note["params"]["threadId"], back),
        (thread_id, thread_id, True),
        "(thread id, unarchived id, listed again)",
    )


@case(
    "thread.resume-after-restart",
    requires=["thread.resume-after-restart", "thread.name-persisted"],
    model=[script.text_reply("First answer.", deltas=2), script.text_reply("Second answer.", deltas=2)],
)
async def resume_after_restart(ctx: CaseContext) -> None:
    """A turn, a server restart on the same home, `thread/resume`, another turn."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    await ctx.run_turn(client, thread_id, "remember this")
    await client.request("thread/name/set", {"threadId": thread_id, "name": "Survivor"})
    await ctx.stop_servers()
    client = await ctx.ready_client("after-restart")
    resumed = await client.request("thread/resume", {"threadId": thread_id})
    ctx.expect("thread.name-persisted", resumed["thread"].get("name"), "Survivor", "name after restart")
    turns = [t["status"] for t in resumed["thread"]["turns"]]
    ctx.expect("thread.resume-after-restart", turns, ["completed"], "resumed turns")
    _, done = await ctx.run_turn(client, thread_id, "and now?")
    ctx.expect("thread.resume-after-restart", done["params"]["turn"]["status"], "completed", "next turn")
    statuses = [m["params"]["turn"]["status"] for m in of_method(client.messages, "turn/completed")]
    ctx.expect("thread.resume-after-restart", statuses, ["completed"], "turn/completed after resume")


@case("thread.unsubscribe", requires=["thread.unsubscribe"])
async def unsubscribe(ctx: CaseContext) -> None:
    """Unsubscribe twice from a thread the connection started."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    first = await client.request("thread/unsubscribe", {"threadId": thread_id})
    second = await client.request("thread/unsubscribe", {"threadId": thread_id})
    loaded = await client.request("thread/loaded/list", {})
    ctx.expect(
        "thread.unsubscribe",
        (first.get("status"), second.get("status"), thread_id in loaded["data"]),
        ("unsubscribed", "notSubscribed", True),
        "(first, second, still loaded)",
    )


@case(
    "thread.history",
    requires=["thread.fork", "thread.turns-list", "thread.items-list"],
    model=[script.text_reply("History answer.", deltas=2)],
)
async def history(ctx: CaseContext) -> None:
    """After one turn: list its turns and items, then fork the thread."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    await ctx.run_turn(client, thread_id, "keep this")
    turns = await client.call("thread/turns/list", {"threadId": thread_id})
    statuses = [t["status"] for t in turns.get("result", {}).get("data", [])]
    ctx.expect("thread.turns-list", statuses, ["completed"], f"turn statuses (reply {str(turns)[:200]})")
    listed_items = await client.call("thread/items/list", {"threadId": thread_id})
    rows = listed_items.get("result", {}).get("data", [])
    shape = [(r["item"]["type"], bool(r.get("turnId"))) for r in rows]
    ctx.expect(
        "thread.items-list",
        shape,
        [("userMessage", True), ("agentMessage", True)],
        f"items (reply {str(listed_items)[:200]})",
    )
    mark = client.mark()
    fork = await client.call("thread/fork", {"threadId": thread_id})
    thread = fork.get("result", {}).get("thread", {})
    ctx.check("thread.fork", "result" in fork, f"reply {str(fork)[:300]}")
    if "result" not in fork:
        return
    started = await client.notification("thread/started", after=mark)
    ctx.expect(
        "thread.fork",
        (
            thread["id"] != thread_id,
            thread.get("forkedFromId"),
            thread.get("preview"),
            started["params"]["thread"]["id"],
        ),
        (True, thread_id, "keep this", thread["id"]),
        "(new id, forkedFromId, preview, thread/started id)",
    )


@case("thread.shell-command", requires=["thread.shell-command"])
async def shell_command(ctx: CaseContext) -> None:
    """`thread/shellCommand` on an idle thread: a user-shell turn."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mark = client.mark()
    reply = await client.call("thread/shellCommand", {"threadId": thread_id, "command": "echo hello; exit 3"})
    req = "thread.shell-command"
    if not ctx.check(req, reply.get("result") == {}, f"reply {str(reply)[:300]}"):
        return
    await client.notification("turn/completed", after=mark)
    done = items(client.since(mark), "item/completed", "commandExecution")
    shape = [
        (i.get("source"), i["status"], i.get("exitCode"), "hello" in str(i.get("aggregatedOutput")))
        for i in done
    ]
    ctx.expect(req, shape, [("userShell", "failed", 3, True)], "commandExecution items")


@case(
    "thread.compact",
    requires=["thread.compact"],
    model=[
        script.text_reply("Before compaction.", deltas=2),
        script.text_reply("Compacted summary.", deltas=2),
    ],
)
async def compact(ctx: CaseContext) -> None:
    """`thread/compact/start` after one turn."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    await ctx.run_turn(client, thread_id, "something to compact")
    mark = client.mark()
    reply = await client.call("thread/compact/start", {"threadId": thread_id})
    if not ctx.check("thread.compact", reply.get("result") == {}, f"reply {str(reply)[:300]}"):
        return
    done = await client.notification("turn/completed", after=mark)
    started = [i["type"] for i in items(client.since(mark), "item/completed", "contextCompaction")]
    ctx.expect(
        "thread.compact",
        (started, done["params"]["turn"]["status"]),
        (["contextCompaction"], "completed"),
        "(completed compaction items, turn status)",
    )


@case(
    "thread.pagination",
    requires=["thread.list-pagination"],
    model=[script.text_reply("One.", deltas=1), script.text_reply("Two.", deltas=1)],
)
async def pagination(ctx: CaseContext) -> None:
    """Two listed threads, paged one at a time."""
    client = await ctx.ready_client()
    ids = set()
    for text in ("first thread", "second thread"):
        thread_id = await ctx.start_thread(client)
        await ctx.run_turn(client, thread_id, text)
        ids.add(thread_id)
    first = await client.request("thread/list", {"limit": 1})
    cursor = first.get("nextCursor")
    second = await client.request("thread/list", {"limit": 1, "cursor": cursor}) if cursor else {"data": []}
    pages = [[t["id"] for t in first["data"]], [t["id"] for t in second["data"]]]
    ctx.expect(
        "thread.list-pagination",
        ([len(p) for p in pages], {i for p in pages for i in p} == ids, cursor is not None),
        ([1, 1], True, True),
        f"(page sizes, both threads seen, cursor) pages {pages}",
    )


@case(
    "thread.resume-overrides",
    requires=["thread.resume-overrides"],
    model=[script.text_reply("First answer.", deltas=2)],
)
async def resume_overrides(ctx: CaseContext) -> None:
    """A turn, a restart, `thread/resume` with overrides, a restart, a plain `thread/resume`."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    await ctx.run_turn(client, thread_id, "remember this")
    await ctx.stop_servers()
    overrides = {"model": "resumed-model", "approvalPolicy": "never", "sandbox": "danger-full-access"}
    expected = ("resumed-model", "never", "dangerFullAccess")
    for step, params in (("with overrides", overrides), ("plain, after a restart", {})):
        client = await ctx.ready_client(f"resume {step}")
        resumed = await client.request(
            "thread/resume", {"threadId": thread_id, "excludeTurns": True, **params}
        )
        settings = (resumed["model"], resumed["approvalPolicy"], resumed["sandbox"]["type"])
        ctx.expect("thread.resume-overrides", settings, expected, f"resume {step}")
        await ctx.stop_servers()


@case(
    "thread.fork-inherits",
    requires=["thread.fork-inherits"],
    model=[script.text_reply("Source answer.", deltas=2)],
)
async def fork_inherits(ctx: CaseContext) -> None:
    """A `never` / `danger-full-access` thread with a turn and a name, then `thread/fork`."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="never", sandbox="danger-full-access")
    await ctx.run_turn(client, thread_id, "keep this")
    await client.request("thread/name/set", {"threadId": thread_id, "name": "Forked source"})
    fork = await client.request("thread/fork", {"threadId": thread_id})
    thread = fork["thread"]
    ctx.expect(
        "thread.fork-inherits",
        (
            fork["approvalPolicy"],
            fork["sandbox"]["type"],
            thread.get("name"),
            [(t.get("itemsView"), [i["type"] for i in t["items"]]) for t in thread["turns"]],
        ),
        ("never", "dangerFullAccess", "Forked source", [("full", ["userMessage", "agentMessage"])]),
        "(approvalPolicy, sandbox, name, turns' items)",
    )
