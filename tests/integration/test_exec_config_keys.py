"""`tether exec --experimental-json` with the Codex keys the TypeScript SDK passes as `-c` flags.

Codex 0.169.0 knows `feedback.enabled`, `analytics.enabled`, `check_for_update_on_startup` and its
feature flags, and its exec stream has no `error` item for them; Tether's must not either. A key
Codex does not know is an `error` item in both (observed: `codex exec --experimental-json
-c bar_unknown=1` prints "Codex is ignoring 1 unrecognized configuration settings…" as one).
Tether keeps `[features]` whole and unchecked, so `features.x` (a name Codex does not know, and
warns about) gives no error item in Tether.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.exec_run import git_repo, run_exec
from tests.support.exec_shapes import validate_stream
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

SDK_FLAGS = (
    "-c",
    "feedback.enabled=false",
    "-c",
    "analytics.enabled=false",
    "-c",
    "check_for_update_on_startup=false",
    "-c",
    "features.goals=true",
    "-c",
    "features.x=true",
)


async def test_codex_keys_from_the_sdk_give_no_error_item(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("Fine."))
    done = await run_exec(
        fake_model.base_url, tmp_path / "home", "--experimental-json", *SDK_FLAGS, "--cd", str(repo), "Go"
    )
    assert done.code == 0, done.stderr
    validate_stream(done.events)
    assert [e["type"] for e in done.events] == [
        "thread.started",
        "turn.started",
        "item.completed",
        "turn.completed",
    ]
    assert "unknown config key" not in done.stderr


async def test_a_key_codex_does_not_know_is_still_an_error_item(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("Fine."))
    args = ("--experimental-json", *SDK_FLAGS, "-c", "bar_unknown=1", "--cd", str(repo), "Go")
    done = await run_exec(fake_model.base_url, tmp_path / "home", *args)
    assert done.code == 0, done.stderr
    errors = [e["item"]["message"] for e in done.events if e.get("item", {}).get("type") == "error"]
    assert errors == ["unknown config key `bar_unknown` ignored"]
