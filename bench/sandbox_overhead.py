"""Median per-command overhead of the sandbox: `true` under bwrap vs bare.

Usage: .venv/bin/python bench/sandbox_overhead.py [RUNS]
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tether_server.sandbox import SandboxCapability, SandboxPolicy, prepare, probe_sandbox

WARMUP = 2


def median_ms(run: Callable[[], object], runs: int) -> float:
    for _ in range(WARMUP):
        run()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def sandboxed(policy: SandboxPolicy, cwd: Path, capability: SandboxCapability) -> Callable[[], None]:
    def run() -> None:
        prepared = prepare(policy, cwd, ["true"], capability, env={})
        try:
            subprocess.run(prepared.argv, pass_fds=prepared.pass_fds, check=True)
        finally:
            prepared.cleanup()

    return run


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    start = time.perf_counter()
    capability = asyncio.run(probe_sandbox())
    probe_ms = (time.perf_counter() - start) * 1000
    if not capability.available:
        sys.exit(f"sandbox unavailable: {capability.reason}; fix: {capability.fix}")
    with tempfile.TemporaryDirectory() as workspace:
        cwd = Path(workspace)
        bare = median_ms(lambda: subprocess.run(["true"], check=True), runs)
        print(f"runs={runs}  probe={probe_ms:.1f} ms (once)")
        print(f"bare true                               {bare:6.2f} ms")
        cases = {
            "read-only, network off (seccomp)": SandboxPolicy(kind="read-only"),
            "workspace-write, network off (seccomp)": SandboxPolicy(kind="workspace-write"),
            "workspace-write, network on": SandboxPolicy(kind="workspace-write", network_access=True),
        }
        for name, policy in cases.items():
            ms = median_ms(sandboxed(policy, cwd, capability), runs)
            print(f"{name:<40}{ms:6.2f} ms  (overhead {ms - bare:+.2f} ms)")


if __name__ == "__main__":
    main()
