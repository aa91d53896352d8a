"""The conformance suite, run against Tether: no unexpected failures, and every requirement covered."""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.manifest import IMPLICIT, load_cases, load_manifest
from conformance.runner import FAIL, RunSettings, case_bugs, run_cases, select_cases, verdicts
from conformance.server import ServerTemplate

from tests.support.schema import reference_dir

MOCK_PROVIDER = " ".join(
    f"-c '{setting}'"
    for setting in (
        'model_provider="mock"',
        'model_providers.mock.name="mock"',
        'model_providers.mock.base_url="{model_base_url}"',
        'model_providers.mock.wire_api="responses"',
        "model_providers.mock.request_max_retries=0",
        "model_providers.mock.stream_max_retries=0",
        'model="gpt-test"',
    )
)


def tether_template(transport: str) -> ServerTemplate:
    listen = "" if transport == "stdio" else "--listen {listen} "
    command = (
        f"{sys.executable} -m tether_server app-server {listen}{MOCK_PROVIDER} --max-inflight-requests 32"
    )
    return ServerTemplate(command, {"TETHER_HOME": "{home}"}, transport)


async def run_suite(
    tmp_path: Path, transport: str, only: list[str], template: ServerTemplate | None = None
) -> list[str]:
    """Run the selected cases against Tether; return the unexpected failures, described."""
    manifest = load_manifest()
    cases = select_cases(load_cases(), only, transport)
    template = template or tether_template(transport)
    settings = RunSettings(template, reference_dir(), tmp_path, "tether", 4, {"flood": 2000})
    results = await run_cases(cases, settings)
    failed = [f"{r.id}: {r.failures}" for r in verdicts(manifest, results, "tether") if r.status == FAIL]
    return failed + [f"case bug {bug}" for bug in case_bugs(results)]


def test_every_requirement_is_checked_by_a_case_and_every_case_cites_known_requirements() -> None:
    manifest = load_manifest()
    cases = load_cases()
    cited = {req for c in cases.values() for req in c.requires}
    assert set(manifest.requirements) - cited - set(IMPLICIT) == set(), "requirements without a case"
    assert cited - set(manifest.requirements) == set(), "cases citing unknown requirements"
    assert all(c.requires for c in cases.values()), "a case that cites nothing"


def test_differences_and_known_gaps_name_real_requirements_and_say_why() -> None:
    manifest = load_manifest()
    listed = [(d.requirement, d.reason) for d in manifest.differences]
    listed += [(g.requirement, g.reason) for g in manifest.gaps]
    assert all(req in manifest.requirements and reason.strip() for req, reason in listed)
    assert all(d.target in ("tether", "codex") for d in manifest.differences)
    assert all(not d.instead or d.instead in manifest.requirements for d in manifest.differences)


async def test_tether_over_stdio_meets_every_requirement_or_differs_by_design(tmp_path: Path) -> None:
    assert await run_suite(tmp_path, "stdio", []) == []


async def test_tether_over_a_unix_socket_serves_several_clients_and_replays_pending_requests(
    tmp_path: Path,
) -> None:
    assert await run_suite(tmp_path, "unix", ["multiclient", "reconnect"]) == []
