"""The cases. Importing this package registers every case in `conformance.manifest.CASES`."""

from conformance.cases import (
    approvals,
    backpressure,
    errors,
    external_tools,
    handshake,
    multiclient,
    plan_mode,
    plugins,
    skills,
    standalone,
    threads,
    tools,
    turns,
)

__all__ = [
    "approvals",
    "backpressure",
    "errors",
    "external_tools",
    "handshake",
    "multiclient",
    "plan_mode",
    "plugins",
    "skills",
    "standalone",
    "threads",
    "tools",
    "turns",
]
