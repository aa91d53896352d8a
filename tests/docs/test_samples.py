"""Every code sample in the docs runs (against the fake model), or is marked and listed here."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.samples import REPO, RUNNABLE, Context, pages, run, samples

# The samples that cannot run here, by page and reason: a new one must be added here on purpose.
NOT_RUN = [
    ("README.md", "runs the whole test suite"),
    ("README.md", "the docs test runs this fake model itself, on a free port"),
    ("docs/adding-a-method.md", "an illustration of a declaration, not a module"),
    ("docs/adding-a-method.md", "an illustration of a handler, not a module"),
    ("docs/clients/ci.md", "a workflow file, run by GitHub Actions"),
    ("docs/clients/codex-tui.md", "the Codex TUI is interactive; tests/e2e/codex_tui drives it"),
    ("docs/clients/codex-tui.md", "opens a full-screen terminal UI"),
    ("docs/clients/codex-tui.md", "needs a TLS certificate and a routable address"),
    ("docs/clients/typescript.md", "TypeScript; tests/e2e/test_node_sdk.py runs the SDK"),
    ("docs/exec.md", "a usage synopsis, not a command"),
    ("docs/exec.md", "TypeScript; tests/e2e/test_node_sdk.py runs the SDK"),
    ("docs/fleet.md", "needs a container engine (none on this machine)"),
    ("docs/operations.md", "needs a systemd user session"),
    ("docs/operations.md", "a Prometheus configuration file"),
    ("packaging/container/README.md", "needs a container runtime (none on this machine)"),
]

# The samples that run but may exit 1 (they must still not crash), by page and reason.
MAY_FAIL = [
    ("docs/operations.md", "the last line probes a local ollama server, absent here"),
]

FAKE_SCRIPT = REPO / "examples" / "hello-script.json"


def test_samples_that_cannot_run_here_are_marked_and_listed() -> None:
    marked = [(s.page, s.reason) for p in pages() for s in samples(p) if s.mark == "skip"]
    assert marked == NOT_RUN
    lenient = [(s.page, s.reason) for p in pages() for s in samples(p) if s.mark == "may-fail"]
    assert lenient == MAY_FAIL
    unrunnable = [s.where for p in pages() for s in samples(p) if s.lang not in RUNNABLE and not s.mark]
    assert unrunnable == [], "mark these samples `<!-- sample: skip: why -->` (a language we cannot run)"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def fake_model_port() -> Iterator[int]:
    """The README's standalone fake model, looping its hello script."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tether_testing", "--script", str(FAKE_SCRIPT), "--port", "0", "--loop"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:"), line
        yield int(line.rsplit(":", 1)[1].split("/", 1)[0])
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


def _context(tmp_path: Path, fake_port: int) -> Context:
    user_home = tmp_path / "user"
    home = user_home / ".tether"
    home.mkdir(parents=True, mode=0o700)
    (home / "config.toml").write_text(
        f'model = "gpt-test"\nopenai_base_url = "http://127.0.0.1:{fake_port}/v1"\n'
        "allow_login_shell = false\n"
        "[model_providers.openai]\nrequest_max_retries = 0\nstream_max_retries = 0\n"
    )
    (home / "config.toml").chmod(0o600)
    work = tmp_path / "work"
    work.mkdir()
    env = {
        **os.environ,
        "HOME": str(user_home),
        "TETHER_HOME": str(home),
        "OPENAI_API_KEY": "sk-docs-test-0000000000000000",
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "NO_COLOR": "1",
    }
    env.pop("TETHER_LOG", None)
    substitutions = {
        "./scripts/tether ": "tether ",
        ".venv/bin/python ": f"{sys.executable} ",
        "8765": str(fake_port),
        "4500": str(_free_port()),
    }
    return Context(work, env, substitutions)


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_the_samples_of_a_page_run(page: Path, tmp_path: Path, fake_model_port: int) -> None:
    ctx = _context(tmp_path, fake_model_port)
    failures: list[str] = []
    try:
        for sample in samples(page):
            if sample.mark == "skip":
                continue
            problem = run(sample, ctx)
            if problem is not None:
                failures.append(f"{sample.where} ({sample.lang}):\n{problem}")
    finally:
        # A daemon a failed sample left running: stop it (its pid file is in this run's home).
        subprocess.run(
            [sys.executable, "-m", "tether_server", "app-server", "daemon", "stop"],
            env=ctx.env,
            capture_output=True,
            timeout=60,
            check=False,
        )
    assert not failures, "\n\n".join(failures)
