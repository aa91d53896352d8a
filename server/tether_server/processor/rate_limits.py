"""`account/rateLimits/updated` from the `x-codex-*` headers of a model response, as Codex reads them.

A provider may report the account's usage windows in each response's headers
(`x-codex-primary-used-percent`, `-window-minutes`, `-reset-at`, the same for `secondary`, and
`x-codex-credits-has-credits|unlimited|balance`). Codex turns them into one snapshot with
`limitId: "codex"` and tells every client; `account/rateLimits/read` still asks the account's
backend (an API key gets Codex's error there, whatever the headers said).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from tether_protocol import server_methods as sm
from tether_protocol.v2 import notifications as n
from tether_server.processor.state import ServerState
from tether_server.rpc.outgoing import send_notification

_PREFIX = "x-codex-"
_LIMIT_ID = "codex"
# The values the wire allows; anything else a provider sends is dropped rather than relayed.
_REACHED = frozenset(
    {
        "rate_limit_reached",
        "workspace_owner_credits_depleted",
        "workspace_member_credits_depleted",
        "workspace_owner_usage_limit_reached",
        "workspace_member_usage_limit_reached",
    }
)


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _whole(text: str | None) -> int | None:
    value = _number(text)
    return None if value is None else int(value)


def _window(headers: Mapping[str, str], which: str) -> n.RateLimitWindow | None:
    used = _number(headers.get(f"{_PREFIX}{which}-used-percent"))
    if used is None:
        return None
    # Codex rounds half away from zero (42.5 → 43); Python's round() would give 42.
    percent = math.floor(abs(used) + 0.5) * (1 if used >= 0 else -1)
    return n.RateLimitWindow(
        used_percent=percent,
        window_duration_mins=_whole(headers.get(f"{_PREFIX}{which}-window-minutes")),
        resets_at=_whole(headers.get(f"{_PREFIX}{which}-reset-at")),
    )


def _flag(text: str | None) -> bool | None:
    if text is None:
        return None
    lowered = text.strip().lower()
    return True if lowered in ("true", "1") else False if lowered in ("false", "0") else None


def _credits(headers: Mapping[str, str]) -> dict[str, object] | None:
    has = _flag(headers.get(f"{_PREFIX}credits-has-credits"))
    unlimited = _flag(headers.get(f"{_PREFIX}credits-unlimited"))
    if has is None or unlimited is None:
        return None
    balance = headers.get(f"{_PREFIX}credits-balance")
    return {"hasCredits": has, "unlimited": unlimited, "balance": balance.strip() if balance else None}


def snapshot(headers: Mapping[str, str]) -> n.RateLimitSnapshot | None:
    """The snapshot the headers describe, or None when they carry no rate-limit window or credits."""
    primary, secondary, credits = (
        _window(headers, "primary"),
        _window(headers, "secondary"),
        _credits(headers),
    )
    if primary is None and secondary is None and credits is None:
        return None
    reached = (headers.get(f"{_PREFIX}rate-limit-reached-type") or "").strip()
    return n.RateLimitSnapshot(
        limit_id=_LIMIT_ID,
        primary=primary,
        secondary=secondary,
        credits=credits,
        rate_limit_reached_type=reached if reached in _REACHED else None,
    )


_NAMED = re.compile(r"^x-codex-([a-z0-9_-]+?)-(?:primary|secondary)-used-percent$")


def _named(headers: Mapping[str, str]) -> list[n.RateLimitSnapshot]:
    """Snapshots of named limit families (`x-codex-<name>-primary-used-percent`, …), in header order."""
    names = dict.fromkeys(m.group(1) for key in headers if (m := _NAMED.match(key.lower())))
    found = []
    for name in names:
        primary = _window(headers, f"{name}-primary")
        secondary = _window(headers, f"{name}-secondary")
        if primary is None and secondary is None:
            continue
        label = (headers.get(f"{_PREFIX}{name}-limit-name") or "").strip()
        limit_id = f"{_LIMIT_ID}_{name.replace('-', '_')}"
        found.append(
            n.RateLimitSnapshot(
                limit_id=limit_id, limit_name=label or None, primary=primary, secondary=secondary
            )
        )
    return found


def headers_seen(state: ServerState, headers: Mapping[str, str]) -> None:
    """A model response's headers arrived: tell every client the limits they carry, if any.

    When the response names limit families, Codex sends those and not the default one.
    """
    named = _named(headers)
    default = snapshot(headers)
    for found in named or ([default] if default is not None else []):
        update = n.AccountRateLimitsUpdatedNotification(rate_limits=found)
        send_notification(state.connections(), sm.ACCOUNT_RATE_LIMITS_UPDATED, update)
