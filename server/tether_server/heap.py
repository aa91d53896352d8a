"""The daemon's heap: how the cyclic garbage collector treats a long-lived process."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Iterator

_paused_for_start = False


def pause_for_start() -> None:
    """No cyclic collection while the daemon loads (until `settle_after_start`).

    Loading makes ~800 modules and thousands of classes and functions, all kept for the life of
    the process; the collections they set off find next to nothing and took about a tenth of the
    CPU spent before the first `thread/start` is answered (issue 31). The few cycles start-up
    leaves behind are frozen with the rest.
    """
    global _paused_for_start
    if gc.isenabled():
        gc.disable()
        _paused_for_start = True


def settle_after_start() -> None:
    """Move what start-up loaded out of the cyclic garbage collector's sight; resume collecting.

    The ~60,000 objects loaded by now (modules, classes, validators) live as long as the process,
    yet every full collection walked them all again; building a large answer (a 10,000-turn
    `thread/resume`) sets off many. Frozen, they are never walked again: that resume takes about
    10% less. A higher collection threshold would save more there (40%), but it cost every small
    turn about 10% (W2), so the thresholds stay as they are.
    """
    global _paused_for_start
    gc.freeze()
    if _paused_for_start:
        _paused_for_start = False
        gc.enable()


_pauses = 0


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic collection while a long history is read and sent (`thread/resume`, `thread/read`).

    Such a read makes tens of thousands of rows, strings and dicts, none of them in a cycle, and
    they set off collections of the whole heap that find nothing: a third of a 10,000-turn resume.
    Other tasks run meanwhile too; a collection put off for that long costs nothing. Nested and
    concurrent pauses end with the last one; a collector someone else turned off stays off.
    """
    global _pauses
    if _pauses == 0 and not gc.isenabled():
        yield
        return
    _pauses += 1
    gc.disable()
    try:
        yield
    finally:
        _pauses -= 1
        if _pauses == 0:
            gc.enable()


def paused_until_answered() -> None:
    """`collection_paused` for the rest of the running request's task, its answer's encoding included.

    Resumed any earlier, the collector walks the answer being built (a 10,000-turn `thread/resume`
    holds ~100,000 objects then) only to find no cycle in it: ~15% of that resume. Once the task is
    done the answer is bytes in the connection's queue and its objects are gone. Outside a task
    (or with the collector off) it does nothing.
    """
    global _pauses
    task = asyncio.current_task()
    if task is None or (_pauses == 0 and not gc.isenabled()):
        return
    _pauses += 1
    gc.disable()
    task.add_done_callback(_end_pause)


def _end_pause(_: object) -> None:
    global _pauses
    _pauses -= 1
    if _pauses == 0:
        gc.enable()
