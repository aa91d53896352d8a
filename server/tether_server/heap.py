"""The daemon's heap: how the cyclic garbage collector treats a long-lived process."""

from __future__ import annotations

import gc


def settle_after_start() -> None:
    """Move what start-up loaded out of the cyclic garbage collector's sight.

    The ~60,000 objects loaded by now (modules, classes, validators) live as long as the process,
    yet every full collection walked them all again; building a large answer (a 10,000-turn
    `thread/resume`) sets off many. Frozen, they are never walked again: that resume takes about
    10% less. A higher collection threshold would save more there (40%), but it cost every small
    turn about 10% (W2), so the thresholds stay as they are.
    """
    gc.freeze()
