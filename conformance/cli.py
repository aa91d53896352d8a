"""`python -m conformance --server-cmd '...' [--transport stdio] [--only ids] [--json out.json]`."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from conformance.manifest import load_cases, load_manifest
from conformance.report import json_report, table, write_json
from conformance.runner import FAIL, RunSettings, case_bugs, run_cases, select_cases, verdicts
from conformance.server import ServerTemplate

REPO = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = REPO / "conformance" / "reference"


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="python -m conformance",
        description="Run the app-server protocol conformance suite against a server started from a template.",
    )
    p.add_argument(
        "--server-cmd", required=True, help="command template: {home} {model_base_url} {listen} {workdir}"
    )
    p.add_argument("--server-env", action="append", default=[], metavar="K=V", help="environment template")
    p.add_argument("--transport", choices=("stdio", "unix", "ws"), default="stdio")
    p.add_argument(
        "--only",
        action="append",
        default=[],
        help="case or requirement ids / prefixes (repeatable, comma-separated)",
    )
    p.add_argument("--json", type=Path, help="write the JSON report here")
    p.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE, help="reference schema directory")
    p.add_argument(
        "--target",
        choices=("tether", "codex", "other"),
        help="whose differences/gaps apply (default: guessed from the command)",
    )
    p.add_argument("--jobs", type=int, default=4, help="cases run at once")
    p.add_argument("--flood", type=int, default=20000, help="requests in the backpressure flood")
    p.add_argument("--scratch", type=Path, help="folder for per-case homes (default: a temporary folder)")
    p.add_argument("--keep-scratch", action="store_true", help="keep per-case homes and server logs")
    p.add_argument("--all-rows", action="store_true", help="also list requirements that were not run")
    return p


def guess_target(command: str) -> str:
    """ "tether" or "codex" when the command names one of them."""
    lowered = command.lower()
    return "tether" if "tether" in lowered else "codex" if "codex" in lowered else "other"


def main(argv: list[str] | None = None) -> int:
    """Run the suite; exit 0 unless a requirement failed unexpectedly (or a case is broken)."""
    args = parser().parse_args(argv)
    env = dict(item.split("=", 1) for item in args.server_env)
    template = ServerTemplate(args.server_cmd, env, args.transport)
    target = args.target or guess_target(args.server_cmd)
    manifest = load_manifest()
    only = [part for item in args.only for part in item.split(",") if part]
    cases = select_cases(load_cases(), only, args.transport)
    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
        scratch = args.scratch or Path(tmp)
        settings = RunSettings(
            template, args.reference, scratch, target, args.jobs, {"flood": args.flood}, args.keep_scratch
        )
        results = asyncio.run(run_cases(cases, settings))
    reqs = verdicts(manifest, results, target)
    print(table(reqs, show_not_run=args.all_rows))
    bugs = case_bugs(results)
    for bug in bugs:
        print(f"CASE BUG {bug}", file=sys.stderr)
    if args.json:
        meta = {"target": target, "transport": args.transport, "server_cmd": args.server_cmd, "only": only}
        write_json(args.json, json_report(manifest, reqs, results, meta))
    return 1 if bugs or any(r.status == FAIL for r in reqs) else 0
