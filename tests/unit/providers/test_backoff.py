"""Retry delays follow 200 ms * 2**(n-1) with 10 % jitter, or the server's own delay."""

from __future__ import annotations

import random

import pytest

from tether_server.providers.retry import backoff_delay, retry_delay


@pytest.mark.parametrize(("attempt", "base"), [(1, 0.2), (2, 0.4), (3, 0.8), (6, 6.4)])
def test_backoff_doubles_per_attempt_within_jitter(attempt: int, base: float) -> None:
    rng = random.Random(attempt)

    delays = [backoff_delay(attempt, rng=rng) for _ in range(200)]

    assert all(base * 0.9 <= delay < base * 1.1 for delay in delays)
    assert len(set(delays)) > 1


def test_attempt_below_one_is_treated_as_the_first_retry() -> None:
    assert 0.18 <= backoff_delay(0) < 0.22


def test_server_requested_delay_wins_over_backoff() -> None:
    assert retry_delay(5, 1.5) == 1.5
    assert 0.18 <= retry_delay(1, None) < 0.22
