"""Servers under test: a command template per target, expanded for each run.

A template is a shell-like command line (split with `shlex`) whose tokens may hold placeholders:
``{python}`` (this interpreter), ``{codex}`` (the reference binary), ``{base_url}`` (the fake
model's ``http://127.0.0.1:PORT/v1``), ``{home}`` (a scratch home folder, fresh per run unless a
workload says otherwise) and ``{cache}`` (a per-target folder kept across invocations).
Environment variables go in front with ``env NAME=VALUE`` (``env`` execs, so the process id is
the server's). For listening workloads the runner appends ``--listen URL``.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

CODEX_BIN = Path(
    os.environ.get(
        "TETHER_BENCH_CODEX",
        "/opt/codex-ref/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    )
)

_MOCK = (
    "-c 'model_provider=\"mock\"' -c 'model_providers.mock.name=\"mock\"' "
    "-c 'model_providers.mock.base_url=\"{base_url}\"' -c 'model_providers.mock.wire_api=\"responses\"' "
    "-c 'model=\"gpt-5.5\"' "
)

# W3's floor (see floor.py): run as a script, so that it needs no import path of its own.
FLOOR_TEMPLATE = "{python} " + str(Path(__file__).with_name("floor.py")) + " {base_url}"

PRESETS: dict[str, str] = {
    "tether": (
        # Bytecode is cached as an installed package would have it (the dev environment sets
        # PYTHONDONTWRITEBYTECODE, which would make every start compile the project from source).
        "env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX={cache}/pycache TETHER_HOME={home} "
        "{python} -m tether_server app-server " + _MOCK + "-c "
        "model_providers.mock.request_max_retries=0 -c model_providers.mock.stream_max_retries=0"
    ),
    "codex": (
        "env CODEX_HOME={home} {codex} app-server "
        + _MOCK
        + "-c model_providers.mock.requires_openai_auth=false"
        " -c model_providers.mock.supports_websockets=false -c features.plugins=false"
    ),
    "floor": FLOOR_TEMPLATE,
}


@dataclass(frozen=True)
class Target:
    """A server under test.

    Attributes:
        name: label in reports (``tether``, ``codex`` or a custom name).
        template: the command template (see the module docstring).
        listen: the ``--listen`` URL template for WebSocket workloads; ``{socket}`` is a scratch
            unix socket path and ``{port}`` a free loopback port.
    """

    name: str
    template: str
    listen: str = "unix://{socket}"

    def argv(self, *, base_url: str, home: Path, cache: Path) -> list[str]:
        """The command line for one run."""
        values = {
            "python": sys.executable,
            "codex": str(CODEX_BIN),
            "base_url": base_url,
            "home": str(home),
            "cache": str(cache),
        }
        return [token.format(**values) for token in shlex.split(self.template)]


def target_from_spec(spec: str, listen: str | None = None) -> Target:
    """``tether``/``codex`` (a preset) or ``NAME=TEMPLATE`` (a custom command template)."""
    name, sep, template = spec.partition("=")
    if not sep:
        if spec not in PRESETS:
            raise ValueError(f"unknown target {spec!r}: use one of {sorted(PRESETS)} or NAME=TEMPLATE")
        template = PRESETS[spec]
    return Target(name, template, listen or "unix://{socket}")


def tree_rss_mb(pid: int) -> float:
    """Resident memory of process `pid` and all its descendants, in MB (from /proc)."""
    total_kb = 0
    for member in _descendants(pid):
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total_kb += int(line.split()[1])
    return total_kb / 1024


def cpu_seconds(pid: int) -> float:
    """CPU time (on-CPU, every thread) process `pid` has used so far, from /proc schedstat.

    Unlike wall-clock times it barely depends on what else the machine runs, so it shows where a
    change helps when the shared machine is busy.
    """
    total_ns = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            total_ns += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total_ns / 1e9


def _descendants(pid: int) -> list[int]:
    found, queue = [pid], [pid]
    while queue:
        current = queue.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.append(child)
                    queue.append(child)
    return found
