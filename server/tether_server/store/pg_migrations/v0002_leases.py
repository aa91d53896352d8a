"""PostgreSQL schema v2: thread ownership leases with fencing epochs, and the fleet's nodes.

A row of `thread_leases` names the node that owns a loaded thread until `expires_at` (the
database's clock, so nodes' clocks never disagree about it). A release expires the row rather
than deleting it, so `epoch` only grows: a former owner's epoch never matches again.
`fleet_nodes` is each daemon's heartbeat, for `tether fleet status`.
"""

from __future__ import annotations

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE thread_leases (
        thread_id TEXT COLLATE "C" PRIMARY KEY,
        node_id TEXT COLLATE "C" NOT NULL,
        epoch BIGINT NOT NULL,
        renewed_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL
    )""",
    "CREATE INDEX thread_leases_by_node ON thread_leases(node_id, expires_at)",
    """CREATE TABLE fleet_nodes (
        node_id TEXT COLLATE "C" PRIMARY KEY,
        address TEXT COLLATE "C",
        started_at TIMESTAMPTZ NOT NULL,
        heartbeat_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL
    )""",
)
