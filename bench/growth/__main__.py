"""``python -m bench.growth [--curve NAME] [--target tether,codex] [--quick]``: the growth curves.

Each curve writes ``bench/results/growth/<curve>.{json,md,png}``; a run replaces only the targets
it ran, so Tether and Codex can be measured in separate invocations.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from bench.growth import db_size, fanout, loaded_threads, resume_history
from bench.growth.curve import Curve, run_curve
from bench.growth.report import markdown, merge, plot
from bench.runner.framework import run_main
from bench.runner.targets import CODEX_BIN, target_from_spec

CURVES: tuple[Curve, ...] = (loaded_threads.CURVE, fanout.CURVE, resume_history.CURVE, db_size.CURVE)
OUT_DIR = Path(__file__).resolve().parents[1] / "results" / "growth"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.growth", description=__doc__)
    names = ", ".join(c.name for c in CURVES)
    parser.add_argument("--curve", default="", help=f"comma-separated curves (default all): {names}")
    parser.add_argument("--target", default="tether,codex", help="comma-separated: tether, codex")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a few minutes in all)")
    parser.add_argument("--scratch", type=Path, default=Path("/opt/bench-scratch"), help="scratch root")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder for the tables and plots")
    parser.add_argument("--render", action="store_true", help="only redraw tables and plots from the JSON")
    parser.add_argument("--keep-scratch", action="store_true", help="keep homes and logs after the run")
    return parser


def _curves(wanted: str) -> list[Curve]:
    names = {name.strip() for name in wanted.split(",") if name.strip()}
    chosen = [c for c in CURVES if not names or c.name in names]
    if not chosen or names - {c.name for c in CURVES}:
        raise SystemExit(f"unknown curve in {wanted!r}; known: {[c.name for c in CURVES]}")
    return chosen


def _log(line: str) -> None:
    print(line, flush=True)


def _render(curve: Curve, out: Path) -> None:
    import orjson

    path = out / f"{curve.name}.json"
    if not path.exists():
        return
    document = orjson.loads(path.read_bytes())
    (out / f"{curve.name}.md").write_text(markdown(curve, document))
    if not plot(curve, document, out / f"{curve.name}.png"):
        _log("matplotlib is missing (pip install -e '.[bench]'): no PNG drawn")


async def _main(args: argparse.Namespace) -> int:
    curves = _curves(args.curve)
    targets = [target_from_spec(name.strip()) for name in args.target.split(",") if name.strip()]
    if any(t.name == "codex" for t in targets) and not CODEX_BIN.exists():
        raise SystemExit(f"reference codex not found at {CODEX_BIN} (see bench/README.md)")
    scratch = args.scratch / f"growth-{os.getpid()}"
    began = time.perf_counter()
    _log(f"{os.cpu_count()} CPUs, load {os.getloadavg()}; scratch {scratch}")
    try:
        for curve in curves:
            for target in targets:
                started = time.perf_counter()
                points = await run_curve(
                    curve, target, scratch, args.scratch / "cache", quick=args.quick, log=_log
                )
                merge(args.out / f"{curve.name}.json", curve, target.name, points, args.quick)
                _log(f"{curve.name} {target.name}: {time.perf_counter() - started:.0f} s")
            _render(curve, args.out)
    finally:
        if not args.keep_scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    _log(f"done in {time.perf_counter() - began:.0f} s; results in {args.out}")
    return 0


def main() -> int:
    """Command line entry point."""
    args = _parser().parse_args()
    if args.render:
        for curve in _curves(args.curve):
            _render(curve, args.out)
        return 0
    return run_main(_main(args))


if __name__ == "__main__":
    sys.exit(main())
