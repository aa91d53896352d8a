"""Backoff between attempts (core.md §1.8): 200 ms doubling per retry, ±10 % jitter."""

from __future__ import annotations

import random

INITIAL_DELAY_S = 0.2
BACKOFF_FACTOR = 2.0
JITTER = (0.9, 1.1)


def backoff_delay(attempt: int, *, rng: random.Random | None = None) -> float:
    """Seconds to wait before retry number `attempt` (1 for the first retry).

    Args:
        attempt: 1-based retry count; values below 1 are treated as 1.
        rng: source of jitter, for reproducible tests.

    Returns:
        ``0.2 * 2**(attempt-1) * uniform(0.9, 1.1)``.
    """
    exponent = max(attempt, 1) - 1
    jitter = (rng or random).uniform(*JITTER)
    return INITIAL_DELAY_S * BACKOFF_FACTOR**exponent * jitter


def retry_delay(attempt: int, server_delay_s: float | None) -> float:
    """The server-requested delay when there is one, else `backoff_delay(attempt)`."""
    return server_delay_s if server_delay_s is not None else backoff_delay(attempt)
