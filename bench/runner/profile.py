"""``python -m bench.runner.profile W2 [W3 …]``: run workloads against Tether under py-spy.

py-spy attaches to every server a workload spawns (``py-spy record --pid``) and writes one
collapsed-stack file per server; the summary printed here ranks functions by inclusive and by
self share of the samples. py-spy is a profiling tool, not a project dependency:
``.venv/bin/pip install py-spy``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import re
import shutil
import sys
from pathlib import Path

from bench.runner.compare import ALL_WORKLOADS
from bench.runner.framework import RunContext, Workload
from bench.runner.rpc import StdioServer
from bench.runner.targets import target_from_spec

_LINE = re.compile(r":\d+\)")


def _py_spy() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(found).exists():
        raise SystemExit("py-spy is not installed: .venv/bin/pip install py-spy")
    return found


async def _profile(workload: Workload, folder: Path, cache_root: Path, rate: int) -> list[Path]:
    outputs: list[Path] = []
    spies: list[asyncio.subprocess.Process] = []

    async def attach(server: StdioServer) -> None:
        out = folder / f"{workload.id}-{len(outputs) + 1}.collapsed"
        outputs.append(out)
        args = [
            "record",
            "--nonblocking",
            "--pid",
            str(server.pid),
            "-r",
            str(rate),
            "-f",
            "raw",
            "-o",
            str(out),
        ]
        spies.append(
            await asyncio.create_subprocess_exec(
                _py_spy(), *args, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
            )
        )
        await asyncio.sleep(0.3)  # py-spy needs a moment to attach; nothing to wait on

    # The bytecode cache is the runner's own, so that imports cost what they cost in a benchmark.
    run, shared, work, cache = folder / "run", folder / "shared", folder / "work", cache_root / "tether"
    for path in (run, shared, work, cache):
        path.mkdir(parents=True, exist_ok=True)
    ctx = RunContext(target_from_spec("tether"), run, shared, work, cache, attach)
    if workload.prepare is not None:
        await workload.prepare(RunContext(ctx.target, ctx.folder, ctx.shared, ctx.workspace, ctx.cache))
    sample = await workload.run(ctx)
    print(f"{workload.id}: {sample.values} {sample.notes}")
    for spy in spies:
        await spy.wait()
    return [out for out in outputs if out.exists()]


def summarize(paths: list[Path], top: int, focus: str = "") -> str:
    """Functions ranked by inclusive and by self share of the samples whose stack mentions `focus`."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for path in paths:
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            frames = [_LINE.sub(")", frame) for frame in stack.split(";") if frame]
            if focus and focus not in frames:
                continue
            samples = int(count)
            total += samples
            for frame in set(frames):
                inclusive[frame] += samples
            if frames:
                own[frames[-1]] += samples
    total = max(total, 1)
    lines = [f"{total} samples", "inclusive:"]
    lines += [f"  {100 * n / total:5.1f}%  {name[:140]}" for name, n in inclusive.most_common(top)]
    lines.append("self:")
    lines += [f"  {100 * n / total:5.1f}%  {name[:140]}" for name, n in own.most_common(top)]
    return "\n".join(lines)


async def _main(args: argparse.Namespace) -> None:
    wanted = {w.upper() for w in args.workloads}
    for workload in [w for w in ALL_WORKLOADS if w.id in wanted]:
        folder = args.scratch / f"profile-{os.getpid()}" / workload.id
        paths = await _profile(workload, folder, args.scratch / "cache", args.rate)
        kept = args.out / workload.id
        kept.mkdir(parents=True, exist_ok=True)
        for path in paths:
            shutil.copy(path, kept / path.name)
        print(summarize(paths, args.top, "" if workload.id == "W1" else args.focus))
        print(f"collapsed stacks: {kept}")
        shutil.rmtree(folder.parent, ignore_errors=True)


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bench.runner.profile", description=__doc__)
    parser.add_argument("workloads", nargs="+", help="workload ids, e.g. W2 W3")
    parser.add_argument("--rate", type=int, default=500, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--focus",
        default="Runner.run (asyncio/runners.py)",
        help="keep only stacks containing this frame (default: the event loop, so start-up imports "
        "do not drown a throughput profile; W1 keeps everything)",
    )
    parser.add_argument("--scratch", type=Path, default=Path("/opt/bench-scratch"))
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parents[1] / "results" / "profiles"
    )
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
