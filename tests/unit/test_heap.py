"""The collector pause around long-history reads: nested and overlapping pauses end with the last,
and a collector someone else turned off stays off."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from tether_server import heap


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_overlapping_pauses_end_with_the_last_one() -> None:
    gc.enable()
    first = heap.collection_paused()
    second = heap.collection_paused()
    first.__enter__()
    second.__enter__()
    assert not gc.isenabled()
    first.__exit__(None, None, None)
    assert not gc.isenabled(), "the other read is still going"
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_pause_ends_even_when_the_read_fails() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), heap.collection_paused():
        raise RuntimeError("store gone")
    assert gc.isenabled()


def test_a_collector_turned_off_elsewhere_stays_off() -> None:
    gc.disable()
    with heap.collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


async def _done_callbacks_ran(task: asyncio.Task[None]) -> None:
    """Wait (bounded) until the callbacks the finished `task` already holds have run: a callback
    added to a finished task is scheduled after them."""
    ran = asyncio.Event()
    task.add_done_callback(lambda _: ran.set())
    await asyncio.wait_for(ran.wait(), timeout=5)


async def test_a_pause_for_an_answer_lasts_until_its_task_is_done_even_past_a_read_pause() -> None:
    gc.enable()
    release = asyncio.Event()
    seen: list[bool] = []

    async def request() -> None:
        heap.paused_until_answered()
        with heap.collection_paused():
            pass
        seen.append(gc.isenabled())  # the read is over; its answer is still being built
        await release.wait()
        seen.append(gc.isenabled())

    task = asyncio.get_running_loop().create_task(request())
    release.set()
    await task
    await _done_callbacks_ran(task)
    assert seen == [False, False] and gc.isenabled()


async def test_a_failing_request_ends_its_pause_too() -> None:
    gc.enable()

    async def request() -> None:
        heap.paused_until_answered()
        raise RuntimeError("store gone")

    task = asyncio.get_running_loop().create_task(request())
    with pytest.raises(RuntimeError):
        await task
    await _done_callbacks_ran(task)
    assert gc.isenabled()
