"""Run one scenario against the real binary and produce its three files' contents."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.recorder.fake import RecordingFake
from conformance.recorder.normalise import Normaliser, scratch_paths, scrub_request_body
from conformance.recorder.scenarios import CLIENT_INFO, MODEL, Scenario, Step
from conformance.recorder.session import Record, Session, StepFailed
from conformance.recorder.skeleton import skeleton

README = "# demo\nold text\n"
# A fixed author and date make the project's commit, and so the sha Codex reports, the same every run.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Tether Recorder",
    "GIT_AUTHOR_EMAIL": "recorder@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "Tether Recorder",
    "GIT_COMMITTER_EMAIL": "recorder@example.invalid",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass(frozen=True)
class Recording:
    """One scenario's files: the transcript, its skeleton, and the model requests (or None)."""

    name: str
    transcript: str
    skeleton: str
    requests: str | None
    failures: list[str]


def codex_argv(codex: Path, base_url: str) -> list[str]:
    """The server command: the README's overrides, pointing Codex at the fake model."""
    overrides = [
        'model_provider="mock"',
        'model_providers.mock.name="mock"',
        f'model_providers.mock.base_url="{base_url}"',
        'model_providers.mock.wire_api="responses"',
        "model_providers.mock.requires_openai_auth=false",
        "model_providers.mock.supports_websockets=false",
        "features.plugins=false",
        f'model="{MODEL}"',
    ]
    return [str(codex), "app-server", *(word for o in overrides for word in ("-c", o))]


async def record(scenario: Scenario, codex: Path, version: str, scratch: Path) -> Recording:
    """Run `scenario` with a fresh home and project under `scratch/<name>`."""
    root = scratch / scenario.name
    shutil.rmtree(root, ignore_errors=True)
    home, work = root / "home", root / "work"
    home.mkdir(parents=True)
    _init_project(work)
    env = {**os.environ, "CODEX_HOME": str(home)}
    fake = RecordingFake(scenario.script())
    async with fake:
        with (root / "server.stderr").open("w") as stderr:
            session = Session(codex_argv(codex, fake.base_url), env, work, stderr)
            session.records.append(_header(scenario, version))
            await session.start()
            try:
                failures = await _run_steps(session, scenario.steps, work)
            finally:
                await session.close()
        unused = fake.remaining
        requests = list(fake.log)
    session.records.append(
        {
            "dir": "meta",
            "event": "mock_summary",
            # The fake logs model requests only; the field stays for the transcripts' format.
            "all_requests": len(requests),
            "model_requests": len(requests),
            "unused_script_entries": unused,
        }
    )
    session.records.append({"dir": "meta", "event": "end", "failures": failures})
    paths = scratch_paths(home, work)
    records = normalise(session.records, paths)
    return Recording(
        scenario.name,
        "".join(json.dumps(r, sort_keys=True) + "\n" for r in records),
        "".join(line + "\n" for line in skeleton(records)),
        _requests_text(requests, paths) if scenario.keep_requests else None,
        failures,
    )


def normalise(records: list[Record], paths: dict[str, str]) -> list[Record]:
    """The records with their messages normalised, in log order (ids are numbered as met).

    `paths`: path -> placeholder."""
    normaliser = Normaliser(paths, socket.gethostname())
    return [{**r, "msg": normaliser.value(r["msg"])} if "msg" in r else r for r in records]


def _header(scenario: Scenario, version: str) -> Record:
    return {
        "dir": "meta",
        "event": "header",
        "scenario": scenario.name,
        "description": scenario.description,
        "server": "codex",
        "server_version": version,
        "transport": "stdio",
    }


async def _run_steps(session: Session, steps: list[Step], work: Path) -> list[str]:
    values = {"$workdir": str(work), "$bogus": str(uuid.uuid4())}
    for index, step in enumerate(steps):
        meta: Record = {"dir": "meta", "event": "step", "index": index, "note": step.note, "op": step.op}
        if step.method is not None:
            meta["method"] = step.method
        session.records.append(meta)
        try:
            await _run_step(session, step, values, work)
        except (StepFailed, ConnectionError) as exc:
            # The rest of the script assumes this step happened: stop here, the transcript shows where.
            return [f"step {index} ({step.op} {step.method or ''}): {exc!r}"]
    return []


async def _run_step(session: Session, step: Step, values: dict[str, str], work: Path) -> None:
    values |= {f"${k}": str(v) for k, v in session.values.items()}
    params = _fill(step.params, values)
    match step.op:
        case "handshake":
            await session.request("initialize", params or {"clientInfo": CLIENT_INFO})
            await session.notify("initialized", None)
        case "request":
            await session.request(str(step.method), params, step.request_id)
        case "notify":
            await session.notify(str(step.method), params)
        case "wait":
            await session.wait_method(str(step.method))
        case "raw":
            await session.send_raw(step.text)
        case "sleep":
            await _sleep(step.seconds)
        case "quiesce":
            await session.quiesce()
        case "respond":
            await session.respond(step.result)
        case "auto_respond":
            session.auto_respond(str(step.method), step.result)
        case "snapshot":
            session.records.append(_snapshot(work, step.paths))
        case _:
            raise StepFailed(f"unknown step {step.op!r}")


async def _sleep(seconds: float) -> None:
    # A pause on purpose: the server gets time to (not) answer input that has no answer to wait for.
    await asyncio.sleep(seconds)


def _fill(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, values) for v in value]
    if isinstance(value, str) and value in values:
        return values[value]
    return value


def _init_project(work: Path) -> None:
    work.mkdir(parents=True)
    (work / "README.md").write_text(README)
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "README.md"], ["commit", "-q", "-m", "demo project"]):
        subprocess.run(["git", *args], cwd=work, env=env, check=True)


def _snapshot(work: Path, paths: tuple[str, ...]) -> Record:
    files: dict[str, Any] = {}
    for rel in paths:
        try:
            files[rel] = (work / rel).read_text()
        except OSError as exc:
            files[rel] = {"missing": exc.strerror}
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=work,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        "dir": "meta",
        "event": "workspace_snapshot",
        "files": files,
        "git_status": status.stdout.splitlines(),
        "label": None,
    }


def _requests_text(requests: list[dict[str, Any]], paths: dict[str, str]) -> str:
    lines = []
    for entry in requests:
        scrubbed = {**entry, "body": scrub_request_body(entry["body"], paths)}
        served = scrubbed.pop("served", None)
        kind = scrubbed.pop("kind")
        lines.append(json.dumps({**scrubbed, "kind": kind, "served": served}) + "\n")
    return "".join(lines)
