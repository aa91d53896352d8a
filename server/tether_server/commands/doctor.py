"""`tether doctor`: check the installation and say what to fix, one line per check.

The exit status is 0 only when every check passes (`ok`, or `skip` for what was not asked).
"""

from __future__ import annotations

import argparse
import sys

from tether_server.commands.flags import add_config_overrides
from tether_server.home_path import tether_home


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `doctor` on the top-level parser."""
    doctor = sub.add_parser("doctor", help="check the installation and explain what to fix")
    doctor.add_argument("--json", action="store_true", help="print the results as one JSON document")
    doctor.add_argument(
        "--probe-model",
        nargs="?",
        const="",
        default=None,
        metavar="MODEL",
        help="also send one small request to the model (the configured one, or MODEL)",
    )
    add_config_overrides(doctor, profile=True)


def run(args: argparse.Namespace) -> int:
    # Imported here: the checks load asyncio, httpx and the provider client, which `app-server`
    # parsing its flags must not.
    import asyncio

    from tether_server.doctor.report import passed, render_json, render_text
    from tether_server.doctor.run import DoctorOptions, run_checks

    options = DoctorOptions(
        home=tether_home(), overrides=args.overrides, profile=args.profile, probe_model=args.probe_model
    )
    checks = asyncio.run(run_checks(options))
    sys.stdout.write(render_json(checks) if args.json else render_text(checks))
    return 0 if passed(checks) else 1
