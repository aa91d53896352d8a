"""``python -m bench.runner [--compare] …``: run the workloads and print/save the comparison."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import sys
from pathlib import Path

import orjson
from bench.runner.compare import ALL_WORKLOADS, Plan, Results, ceilings, run_plan, warm_up
from bench.runner.framework import Sample, Workload, run_main
from bench.runner.report import metric_row, table
from bench.runner.rpc import Json
from bench.runner.targets import CODEX_BIN, Target, target_from_spec

RESULTS_DIR = Path(__file__).resolve().parents[1] / "results"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.runner", description=__doc__)
    parser.add_argument("--compare", action="store_true", help="run A and B alternately (A B A B …)")
    parser.add_argument("--a", default="tether", help="target A: preset name or NAME=TEMPLATE")
    parser.add_argument("--b", default="codex", help="target B (with --compare)")
    parser.add_argument("--a-listen", default=None, help="--listen template for A (default unix://{socket})")
    parser.add_argument("--b-listen", default=None, help="--listen template for B (default unix://{socket})")
    parser.add_argument("--reps", type=int, default=5, help="repetitions per workload and target")
    parser.add_argument("--only", default="", help="comma-separated workload ids, e.g. W1,W3")
    parser.add_argument("--scratch", type=Path, default=Path("/opt/bench-scratch"), help="scratch root")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for the results JSON")
    parser.add_argument("--render", type=Path, default=None, help="print the table of a saved results JSON")
    parser.add_argument("--keep-scratch", action="store_true", help="keep homes and logs after the run")
    parser.add_argument(
        "--reuse-prepared",
        default="codex",
        help="comma-separated targets whose prepared state (W7's filled home) is kept and reused "
        "across invocations; 'none' to always rebuild",
    )
    return parser


def _targets(args: argparse.Namespace) -> list[Target]:
    targets = [target_from_spec(args.a, args.a_listen)]
    if args.compare:
        targets.append(target_from_spec(args.b, args.b_listen))
    if len({t.name for t in targets}) != len(targets):
        raise SystemExit("targets A and B need different names")
    if any("{codex}" in t.template for t in targets) and not CODEX_BIN.exists():
        raise SystemExit(
            f"reference codex not found at {CODEX_BIN}: mkdir -p /opt/codex-ref && cd /opt/codex-ref && "
            "npm install @openai/codex@0.169.0 (or set TETHER_BENCH_CODEX)"
        )
    return targets


def _workloads(only: str) -> list[Workload]:
    wanted = {w.strip().upper() for w in only.split(",") if w.strip()}
    chosen = [w for w in ALL_WORKLOADS if not wanted or w.id in wanted]
    if not chosen:
        raise SystemExit(f"no workload matches {only!r}; known: {[w.id for w in ALL_WORKLOADS]}")
    return chosen


def _load(values: tuple[float, float, float]) -> str:
    return "/".join(f"{v:.1f}" for v in values)


def _log(line: str) -> None:
    print(line, flush=True)


def _save(plan: Plan, results: Results, harness: Json, started: dt.datetime, out: Path) -> Path:
    names = [t.name for t in plan.targets]
    document: Json = {
        "started": started.isoformat(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "targets": {t.name: {"template": t.template, "listen": t.listen} for t in plan.targets},
        "reps": plan.reps,
        "harness": harness,
        "workloads": {},
    }
    for workload in plan.workloads:
        per_target = results.get(workload.id, {})
        b = per_target.get(names[1], []) if len(names) > 1 else None
        document["workloads"][workload.id] = {
            "title": workload.title,
            "summary": [metric_row(m, per_target.get(names[0], []), b) for m in workload.metrics],
            "samples": {name: [s.to_json() for s in per_target.get(name, [])] for name in names},
        }
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{started.strftime('%Y%m%dT%H%M%SZ')}-{'-vs-'.join(names)}.json"
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    return path


async def _main(args: argparse.Namespace) -> int:
    started = dt.datetime.now(dt.UTC)
    reuse = frozenset(name.strip() for name in args.reuse_prepared.split(",") if name.strip() != "none")
    run_folder = args.scratch / f"run-{os.getpid()}"
    plan = Plan(_targets(args), _workloads(args.only), args.reps, run_folder, args.scratch / "cache", reuse)
    _log(f"{started:%Y-%m-%d %H:%M:%S} UTC, {os.cpu_count()} CPUs; scratch {plan.scratch}")
    for target in plan.targets:
        _log(f"target {target.name}: {target.template}")
    try:
        harness = await ceilings(plan.scratch)
        _log(
            f"harness ceilings: fake model {harness['fake_deltas_per_s']:,.0f} deltas/s to a raw HTTP reader;"
            " "
            f"client parses {harness['client_parse_per_s']:,.0f} notifications/s"
        )
        harness["load_before"] = os.getloadavg()
        await warm_up(plan, _log)
        results = await run_plan(plan, _log)
        harness["load_after"] = os.getloadavg()
    finally:
        if not args.keep_scratch:
            shutil.rmtree(plan.scratch, ignore_errors=True)
    _log("")
    _log(table(plan.workloads, results, [t.name for t in plan.targets]))
    before, after = _load(harness["load_before"]), _load(harness["load_after"])
    _log(f"\nload average (1/5/15 min) before {before}, after {after}")
    _log(f"results: {_save(plan, results, harness, started, args.out)}")
    return 0


def _render(path: Path) -> int:
    document = orjson.loads(path.read_bytes())
    names = list(document["targets"])
    chosen = [w for w in ALL_WORKLOADS if w.id in document["workloads"]]
    results: Results = {
        w.id: {name: [Sample(**s) for s in document["workloads"][w.id]["samples"][name]] for name in names}
        for w in chosen
    }
    _log(table(chosen, results, names))
    return 0


def main() -> int:
    """Command line entry point."""
    args = _parser().parse_args()
    if args.render is not None:
        return _render(args.render)
    return run_main(_main(args))


if __name__ == "__main__":
    sys.exit(main())
