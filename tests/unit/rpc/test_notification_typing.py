"""mypy refuses a notification sent with another notification's params (notification_typing.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CHECKED = Path(__file__).with_name("notification_typing.py")


def test_mypy_refuses_each_mismatched_send_and_accepts_the_right_ones(tmp_path: Path) -> None:
    source = CHECKED.read_text().splitlines()
    marked = {i for i, line in enumerate(source, 1) if "# type: ignore[" in line}
    assert len(marked) == 4
    bare = tmp_path / "notification_typing_bare.py"
    bare.write_text("\n".join(re.sub(r"  # type: ignore\[[\w-]+\]$", "", line) for line in source) + "\n")
    run = subprocess.run(
        [
            sys.executable,
            *("-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")),
            *("--cache-dir", "/dev/null", "--follow-imports", "silent", "--no-error-summary"),
            str(bare),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=80,
        check=False,
    )
    errors = [line for line in run.stdout.splitlines() if ": error: " in line]
    assert {int(line.split(":")[1]) for line in errors} == marked, run.stdout + run.stderr
    assert len(errors) == len(marked), run.stdout
