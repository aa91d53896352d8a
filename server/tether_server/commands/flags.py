"""Flags several subcommands share, spelled once."""

from __future__ import annotations

import argparse


def add_config_overrides(parser: argparse.ArgumentParser, *, profile: bool = False) -> None:
    """`-c/--config key=value` (repeatable), and `-p/--profile` when asked."""
    parser.add_argument(
        "-c",
        "--config",
        dest="overrides",
        action="append",
        default=[],
        metavar="key=value",
        help="override a config.toml key (value parsed as TOML)",
    )
    if profile:
        parser.add_argument("-p", "--profile", default=None, help="config profile to apply")
