"""SIGKILL at random moments of turns with tool calls, approvals and several clients.

After each restart nothing a client was told is lost: every item it saw complete is in
thread/read, every turn ended (completed or interrupted), the database is intact, a client
resuming with afterSeq gets no gap and no duplicate, and the thread takes a new turn. Every feedback
bundle a client was told is saved is a whole ZIP, and none is left half-written at its path. Every
section a client was told is created is listed, and the thread is in its last answered section or a
later one. The thread's goal is that of its last answered `thread/goal/set` or a later one. Every
attachment a client was told is created is listed, unchanged, and every message a client was told
is queued is still queued, in order, unless its deletion was asked. Every project a client was
told is created is listed as it was answered. The tokens of an OAuth MCP server are those of the
last completed sign-in or of the one the kill cut off.
"""

from __future__ import annotations

import random
from pathlib import Path

from tests.chaos.conftest import scale
from tests.chaos.crashdriver import CrashDriver
from tether_testing.fake_responses import FakeResponsesServer

KILLS = scale(ci=20, full=200)
PG_KILLS = scale(ci=3, full=100)  # the same checks on PostgreSQL; fewer in CI, as each round costs more


async def test_random_sigkills_lose_nothing_reported_complete(
    tmp_path: Path, fake_model: FakeResponsesServer, workdir: Path, seeded_rng: random.Random
) -> None:
    driver = CrashDriver(tmp_path / "home", workdir, fake_model, seeded_rng, clients=3)
    await _battery(driver, KILLS)


async def test_random_sigkills_lose_nothing_reported_complete_on_postgresql(
    tmp_path: Path,
    fake_model: FakeResponsesServer,
    workdir: Path,
    seeded_rng: random.Random,
    postgres_url: str,
) -> None:
    driver = CrashDriver(
        tmp_path / "home", workdir, fake_model, seeded_rng, clients=3, store_url=postgres_url
    )
    await _battery(driver, PG_KILLS)


async def _battery(driver: CrashDriver, kills: int) -> None:
    try:
        for _ in range(kills):
            await driver.round()
        await driver.round(kill=False)
    finally:
        # The fake issuer's server thread, left running by a failed round, hangs pytest's exit.
        driver.signins.close()
        await driver.mcp_signins.close()
    figures = driver.figures
    assert figures.kills == kills
    assert figures.feedback_saved > 0, "no feedback save was answered before a kill"
    assert driver.goals.last_answered >= 0, "no goal set was answered before a kill"
    assert driver.sections.created, "no section creation was answered before a kill"
    assert driver.attachments.answered, "no attachment was answered as created before a kill"
    assert driver.queue.answered, "no queued message was answered before a kill"
    assert driver.projects.answered, "no project creation was answered before a kill"
    assert driver.mcp_signins.completed, "no MCP OAuth sign-in completed before a kill"
    mcp = driver.mcp_signins
    print(f"crash battery: {figures}; MCP OAuth sign-ins completed {mcp.completed} of {mcp.asked}")
