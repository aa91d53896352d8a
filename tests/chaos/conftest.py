"""The chaos batteries' knobs: one code path, small counts in CI, full counts with CHAOS_FULL=1.

Randomised batteries draw from `seeded_rng`; the seed is printed with every failure and replayed
with CHAOS_SEED=<n>.
"""

from __future__ import annotations

import os
import random
from collections.abc import Generator

import pytest

FULL = os.environ.get("CHAOS_FULL", "") not in ("", "0")


def scale(ci: int, full: int) -> int:
    """`full` in a by-hand full run (CHAOS_FULL=1), `ci` otherwise."""
    return full if FULL else ci


def chaos_seed() -> int:
    value = os.environ.get("CHAOS_SEED")
    return int(value) if value else random.SystemRandom().randrange(2**32)


@pytest.fixture
def seeded_rng(request: pytest.FixtureRequest) -> random.Random:
    seed = chaos_seed()
    request.node.user_properties.append(("chaos_seed", seed))
    return random.Random(seed)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    seeds = [value for key, value in item.user_properties if key == "chaos_seed"]
    if seeds and report.failed:
        report.sections.append(("chaos seed", f"replay with CHAOS_SEED={seeds[0]}"))
    return report
