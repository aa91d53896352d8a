"""thread/list, turns/list and items/list: filters, search and keyset cursors, on both stores."""

from __future__ import annotations

import base64

import pytest
from tests.unit.store.store_records import agent_item, commit_threads, conversation, thread, turn, user_item

from tether_server.store.base import (
    Batch,
    InvalidCursor,
    SortDirection,
    SortKey,
    ThreadQuery,
    ThreadRecord,
    ThreadStore,
)


async def list_ids(store: ThreadStore, **query: object) -> list[str]:
    page = await store.list_threads(ThreadQuery(limit=100, **query))  # type: ignore[arg-type]
    return [r.id for r in page.data]


async def walk(store: ThreadStore, query: ThreadQuery) -> list[ThreadRecord]:
    """Follow next_cursor from `query` to the end."""
    rows: list[ThreadRecord] = []
    while True:
        page = await store.list_threads(query)
        rows.extend(page.data)
        if page.next_cursor is None:
            return rows
        query = ThreadQuery(**{**query.__dict__, "cursor": page.next_cursor})


def tied_threads() -> list[ThreadRecord]:
    """23 threads whose sort values collide in groups, so only the id breaks ties."""
    return [thread(f"t{n:02d}", created=n // 4, updated_at=n % 5, recency_at=(n * 7) % 3) for n in range(23)]


async def test_only_threads_with_a_preview_are_listed_newest_first(store: ThreadStore) -> None:
    await commit_threads(store, [thread("old", 1), thread("new", 3), thread("blank", 2, preview="")])

    assert await list_ids(store) == ["new", "old"]
    assert await list_ids(store, sort_direction="asc") == ["old", "new"]
    assert await store.get_thread("blank") is not None


async def test_each_sort_key_orders_by_its_own_timestamp(store: ThreadStore) -> None:
    await commit_threads(
        store, [thread("a", 1, updated_at=9, recency_at=5), thread("b", 2, updated_at=8, recency_at=7)]
    )

    assert await list_ids(store, sort_key="created_at") == ["b", "a"]
    assert await list_ids(store, sort_key="updated_at") == ["a", "b"]
    assert await list_ids(store, sort_key="recency_at") == ["b", "a"]


async def test_filters_narrow_the_list(store: ThreadStore) -> None:
    await commit_threads(
        store,
        [
            thread("a", 1, cwd="/x", model_provider="openai", source="vscode"),
            thread("b", 2, cwd="/y", model_provider="ollama", source="cli"),
            thread("c", 3, cwd="/z", model_provider="openai", source="exec"),
            thread("d", 4, archived=True),
        ],
    )

    assert await list_ids(store, archived=True) == ["d"]
    assert await list_ids(store, cwds=["/x", "/y"]) == ["b", "a"]
    assert await list_ids(store, model_providers=["ollama"]) == ["b"]
    assert await list_ids(store, sources=["vscode", "exec"]) == ["c", "a"]
    assert await list_ids(store, exclude_ids=["a", "c"]) == ["b"]
    assert await list_ids(store, cwds=[], model_providers=[], sources=[]) == ["c", "b", "a"]


@pytest.mark.parametrize("sort_key", ["created_at", "updated_at", "recency_at"])
@pytest.mark.parametrize("direction", ["asc", "desc"])
async def test_paging_to_the_end_sees_every_thread_once_despite_ties(
    store: ThreadStore, sort_key: SortKey, direction: SortDirection
) -> None:
    records = tied_threads()
    await commit_threads(store, records)
    expected = sorted(records, key=lambda r: (getattr(r, sort_key), r.id), reverse=direction == "desc")

    rows = await walk(store, ThreadQuery(limit=4, sort_key=sort_key, sort_direction=direction))

    assert [r.id for r in rows] == [r.id for r in expected]


@pytest.mark.parametrize("direction", ["asc", "desc"])
async def test_backwards_cursors_page_back_to_the_start_without_gaps(
    store: ThreadStore, direction: SortDirection
) -> None:
    await commit_threads(store, tied_threads())
    forward = await walk(store, ThreadQuery(limit=5, sort_direction=direction))
    last_page = await store.list_threads(ThreadQuery(limit=5, sort_direction=direction, cursor=None))
    while last_page.next_cursor is not None:
        cursor = last_page.next_cursor
        last_page = await store.list_threads(ThreadQuery(limit=5, sort_direction=direction, cursor=cursor))

    other: SortDirection = "asc" if direction == "desc" else "desc"
    back = await walk(store, ThreadQuery(limit=5, sort_direction=other, cursor=last_page.backwards_cursor))

    assert [r.id for r in back] == [r.id for r in reversed(forward)][len(last_page.data) :]


async def test_the_last_page_has_no_next_cursor_and_an_empty_list_no_cursors(store: ThreadStore) -> None:
    empty = await store.list_threads(ThreadQuery())
    assert (empty.data, empty.next_cursor, empty.backwards_cursor) == ([], None, None)

    await commit_threads(store, [thread("a", 1), thread("b", 2)])
    page = await store.list_threads(ThreadQuery(limit=2))
    assert [r.id for r in page.data] == ["b", "a"]
    assert page.next_cursor is None
    assert page.backwards_cursor is not None


async def test_a_backwards_cursor_from_the_first_page_finds_threads_created_later(store: ThreadStore) -> None:
    await commit_threads(store, [thread("a", 1), thread("b", 2)])
    first = await store.list_threads(ThreadQuery(limit=10))

    await commit_threads(store, [thread("c", 3), thread("d", 4)])
    newer = await store.list_threads(ThreadQuery(sort_direction="asc", cursor=first.backwards_cursor))

    assert [r.id for r in newer.data] == ["c", "d"]


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        "!!!",
        base64.urlsafe_b64encode(b"[1, 2]").decode(),
        base64.urlsafe_b64encode(b'{"s": "threads:created_at", "k": "x", "id": "a"}').decode(),
        base64.urlsafe_b64encode(b'{"s": "threads:updated_at", "k": 1, "id": "a"}').decode(),
    ],
)
async def test_a_cursor_the_store_did_not_produce_is_refused(store: ThreadStore, cursor: str) -> None:
    await commit_threads(store, [thread("a", 1)])
    with pytest.raises(InvalidCursor):
        await store.list_threads(ThreadQuery(cursor=cursor, sort_key="created_at"))


async def test_a_turns_cursor_from_another_thread_is_refused(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=3))
    page = await store.list_turns("th1", cursor=None, limit=1, direction="asc")

    with pytest.raises(InvalidCursor):
        await store.list_turns("th2", cursor=page.next_cursor, limit=1, direction="asc")
    with pytest.raises(InvalidCursor):
        await store.list_items("th1", turn_id=None, cursor=page.next_cursor, limit=1, direction="asc")


async def test_search_matches_name_preview_and_message_text_case_insensitively(store: ThreadStore) -> None:
    await commit_threads(
        store,
        [
            thread("named", 1, name="Refactor the Parser"),
            thread("previewed", 2, preview="why is the PARSER slow?"),
            thread("other", 3, preview="unrelated"),
        ],
    )
    await store.commit(Batch(thread=thread("talked", 4), turns=[turn("talked", 0)]))
    await store.commit(Batch(items=[agent_item("talked", "talked:turn0", 0, "The parser is now fixed")]))
    await store.commit(Batch(items=[user_item("talked", "talked:turn0", 1, "Thanks, grammar looks good")]))

    assert await list_ids(store, search_term="parser") == ["talked", "previewed", "named"]
    assert await list_ids(store, search_term="GRAMMAR") == ["talked"]
    assert await list_ids(store, search_term="nothing like this") == []
    assert await list_ids(store, search_term="") == ["talked", "other", "previewed", "named"]


async def test_search_folds_case_beyond_ascii(store: ThreadStore) -> None:
    await commit_threads(store, [thread("fr", 1, preview="Un café crème"), thread("en", 2, preview="coffee")])

    assert await list_ids(store, search_term="CAFÉ CRÈME") == ["fr"]


async def test_search_handles_short_terms_and_special_characters(store: ThreadStore) -> None:
    await commit_threads(
        store,
        [thread("pct", 1, preview='100% "quoted" a_b'), thread("plain", 2, preview="1000 quoted ab")],
    )

    assert await list_ids(store, search_term="%") == ["pct"]
    assert await list_ids(store, search_term="_b") == ["pct"]
    assert await list_ids(store, search_term='"quoted"') == ["pct"]
    assert await list_ids(store, search_term="Ab") == ["plain"]


async def test_search_follows_renames_edits_and_deletes(store: ThreadStore) -> None:
    await store.commit(Batch(thread=thread("th1", 1), turns=[turn("th1", 0)]))
    await store.commit(Batch(items=[agent_item("th1", "th1:turn0", 0, "original wording")]))

    await store.set_name("th1", "zebra crossing", at=2)
    await store.commit(Batch(items=[agent_item("th1", "th1:turn0", 0, "rewritten answer")]))

    assert await list_ids(store, search_term="zebra") == ["th1"]
    assert await list_ids(store, search_term="original") == []
    assert await list_ids(store, search_term="rewritten") == ["th1"]
    await store.truncate_before_turn("th1", "th1:turn0")
    assert await list_ids(store, search_term="rewritten") == []
    await store.delete_thread("th1")
    assert await list_ids(store, search_term="zebra") == []


async def test_search_combines_with_filters_and_paging(store: ThreadStore) -> None:
    await commit_threads(store, [thread(f"t{n}", n, preview=f"topic {n % 2}") for n in range(9)])

    rows = await walk(store, ThreadQuery(limit=2, search_term="topic 1", exclude_ids=["t3"]))

    assert [r.id for r in rows] == ["t7", "t5", "t1"]


@pytest.mark.parametrize("direction", ["asc", "desc"])
async def test_turns_page_by_ordinal_in_both_directions(store: ThreadStore, direction: SortDirection) -> None:
    await store.commit(conversation("th1", turns=7))
    expected = [f"th1:turn{n}" for n in range(7)]
    expected = expected if direction == "asc" else expected[::-1]

    seen: list[str] = []
    cursor: str | None = None
    while True:
        turns = await store.list_turns("th1", cursor=cursor, limit=3, direction=direction)
        seen.extend(t.turn_id for t in turns.data)
        cursor = turns.next_cursor
        if cursor is None:
            break

    assert seen == expected


async def test_a_turns_backwards_cursor_returns_the_turns_before_the_page(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=6))
    first = await store.list_turns("th1", cursor=None, limit=2, direction="desc")
    second = await store.list_turns("th1", cursor=first.next_cursor, limit=2, direction="desc")

    back = await store.list_turns("th1", cursor=second.backwards_cursor, limit=10, direction="asc")

    assert [t.turn_id for t in second.data] == ["th1:turn3", "th1:turn2"]
    assert [t.turn_id for t in back.data] == ["th1:turn4", "th1:turn5"]


async def test_items_page_across_the_thread_or_within_one_turn(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=3))

    first = await store.list_items("th1", turn_id=None, cursor=None, limit=4, direction="asc")
    rest = await store.list_items("th1", turn_id=None, cursor=first.next_cursor, limit=4, direction="asc")
    one_turn = await store.list_items("th1", turn_id="th1:turn1", cursor=None, limit=10, direction="desc")

    assert [i.item_id for i in first.data] == ["u0", "msg1", "u2", "msg3"]
    assert ([i.item_id for i in rest.data], rest.next_cursor) == (["u4", "msg5"], None)
    assert [i.item_id for i in one_turn.data] == ["msg3", "u2"]
    assert {i.turn_id for i in one_turn.data} == {"th1:turn1"}
