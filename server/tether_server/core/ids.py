"""Identifiers: UUIDv7 for threads and turns (time-ordered, like Codex)."""

from __future__ import annotations

import os
import threading
import time
import uuid

_RAND_B = (1 << 62) - 1
_last = 0
_lock = threading.Lock()
# Random bits drawn 4 kB at a time: a syscall per id let go of the interpreter lock, and taking it
# back behind the daemon's other threads made an id cost tens of microseconds on a busy daemon.
_pool = b""
_taken = 0


def _compose(ms: int, rand_a: int, rand_b: int) -> int:
    return (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | (rand_a & 0xFFF) << 64 | 0b10 << 62 | rand_b


def uuid7() -> str:
    """A UUIDv7, strictly greater than the last one this process made (RFC 9562 §6.2, method 2):
    ids made in the same millisecond still sort in the order they were made, so a table ordered by
    id (sections, items) is in creation order."""
    global _last, _pool, _taken
    with _lock:
        if _taken + 10 > len(_pool):
            _pool, _taken = os.urandom(4096), 0
        rand = int.from_bytes(_pool[_taken : _taken + 10], "big")
        _taken += 10
        value = _compose(time.time_ns() // 1_000_000, (rand >> 62) & 0xFFF, rand & _RAND_B)
        if value <= _last:
            ms, rand_a, rand_b = _last >> 80, (_last >> 64) & 0xFFF, (_last & _RAND_B) + 1
            if rand_b > _RAND_B:
                rand_b, rand_a = 0, rand_a + 1
                if rand_a > 0xFFF:
                    rand_a, ms = 0, ms + 1
            value = _compose(ms, rand_a, rand_b)
        _last = value
    return str(uuid.UUID(int=value))


def now_s() -> int:
    return int(time.time())


def now_ms() -> int:
    return time.time_ns() // 1_000_000
