"""Code samples in the docs: finding them, and running one the way a reader would.

A fenced block with a language is a sample. `sh`/`bash` blocks run in bash (`set -euo pipefail`),
`python` blocks in this Python, `json` blocks must parse (as one document or one per line) and
`toml` blocks must load as a config.toml. Any other language, and any sample that cannot run here,
carries a marker on the line before its fence, which the docs test lists:

    <!-- sample: skip: why it cannot run here -->
    <!-- sample: may-fail: why it may exit 1 (it still must not crash) -->

Samples run against the fake model with the docs' own placeholders swapped for this run's values:
the fake model's port for 8765, a free port for 4500, `tether` for `./scripts/tether`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tether_server.config import load_config
from tether_server.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(```+)([A-Za-z0-9_+-]*)\s*$")
MARK = re.compile(r"^<!--\s*sample:\s*(skip|may-fail):\s*(.+?)\s*-->$")
RUNNABLE = frozenset({"sh", "bash", "python", "json", "toml"})
SAMPLE_TIMEOUT_S = 120


@dataclass(frozen=True)
class Sample:
    page: str
    line: int
    lang: str
    code: str
    mark: str | None = None
    reason: str = ""

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """Every page with samples: the README, docs/ (recursively) and the container README."""
    found = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    found.append(REPO / "packaging" / "container" / "README.md")
    return found


def samples(path: Path) -> list[Sample]:
    lines = path.read_text(encoding="utf-8").splitlines()
    page = str(path.relative_to(REPO))
    found: list[Sample] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == opening.group(1))
        mark = MARK.match(lines[i - 1].strip()) if i else None
        if opening.group(2):
            found.append(
                Sample(
                    page,
                    i + 1,
                    opening.group(2),
                    "\n".join(lines[i + 1 : end]) + "\n",
                    mark.group(1) if mark else None,
                    mark.group(2) if mark else "",
                )
            )
        i = end + 1
    return found


@dataclass
class Context:
    """Where a page's samples run: one scratch directory and one environment, shared in order."""

    cwd: Path
    env: dict[str, str]
    substitutions: dict[str, str]

    def prepare(self, code: str) -> str:
        for old, new in self.substitutions.items():
            code = code.replace(old, new)
        return code


def run(sample: Sample, ctx: Context) -> str | None:
    """Run one sample; None when it did what it should, else what went wrong."""
    code = ctx.prepare(sample.code)
    if sample.lang == "json":
        return _check_json(code)
    if sample.lang == "toml":
        return _check_toml(code, ctx.cwd)
    if sample.lang in ("sh", "bash"):
        argv = ["bash", "-c", "set -euo pipefail\n" + code]
    else:
        script = ctx.cwd / f"sample_{sample.line}.py"
        script.write_text(code)
        argv = [sys.executable, str(script)]
    try:
        done = subprocess.run(
            argv,
            cwd=ctx.cwd,
            env=ctx.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SAMPLE_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"did not finish in {SAMPLE_TIMEOUT_S}s"
    allowed = (0, 1) if sample.mark == "may-fail" else (0,)
    if done.returncode in allowed and "Traceback (most recent call last)" not in done.stderr:
        return None
    return f"exit {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"


def _check_json(code: str) -> str | None:
    try:
        json.loads(code)
        return None
    except ValueError:
        pass
    for number, line in enumerate(code.splitlines(), 1):
        if line.strip():
            try:
                json.loads(line)
            except ValueError as exc:
                return f"line {number} is not JSON: {exc}"
    return None


def _check_toml(code: str, scratch: Path) -> str | None:
    try:
        tomllib.loads(code)
    except tomllib.TOMLDecodeError as exc:
        return f"not TOML: {exc}"
    home = scratch / "toml-sample-home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(code)
    try:
        loaded = load_config(home, [], strict=True)
    except ConfigError as exc:
        return f"config.toml rejects it: {exc.message}"
    return "; ".join(loaded.warnings) or None
