"""Token usage and workspace messages of a ChatGPT account, read from its backend as Codex 0.169.0.

Observed against a loopback `chatgpt_base_url`:
- `account/usage/read` is `GET /wham/profiles/me` (`{"stats": {...}}`); with a `threadId` it is
  `POST /wham/usage/thread_usage/query` (`{"thread_ids": [id]}`, answered `{"threads": [...]}`)
  instead, with an empty summary; a 404 there means no estimate (all null), not an error.
- `account/workspaceMessages/read` is `GET /wham/workspace-messages` (`Cache-Control: no-store`);
  a 404 means the route is off for this client (`featureEnabled: false`), times are RFC 3339 text
  on the backend and Unix seconds on the wire, an unknown type is `unknown`.
- Any other refusal is -32603 "failed to fetch <what>: <METHOD> <url> failed: <status>; ...".
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from tether_protocol.v2 import account_limits as al
from tether_server.errors import InternalError
from tether_server.processor import chatgpt_backend as backend
from tether_server.processor.state import ServerState

if TYPE_CHECKING:  # for annotations only: chatgpt_backend imports httpx with its first request
    import httpx

_PROFILE = "/wham/profiles/me"
_THREAD_USAGE = "/wham/usage/thread_usage/query"
_MESSAGES = "/wham/workspace-messages"
_MESSAGE_TYPES = ("headline", "announcement")


def _int(raw: object) -> int | None:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else None


def _str(raw: object) -> str | None:
    return raw if isinstance(raw, str) else None


def _json(response: httpx.Response, what: str) -> dict[str, Any]:
    """The backend's JSON object, or Codex's decode error (the body quoted, as Codex does)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise _undecodable(response, what, "expected a JSON object")
    return body


def _undecodable(response: httpx.Response, what: str, reason: str) -> InternalError:
    return InternalError(
        f"failed to fetch {what}: Decode error for {response.request.url}: {reason}; "
        f"content-type={response.headers.get('content-type', '')}; body={response.text}"
    )


def _summary(stats: dict[str, Any]) -> al.AccountTokenUsageSummary:
    return al.AccountTokenUsageSummary(
        lifetime_tokens=_int(stats.get("lifetime_tokens")),
        peak_daily_tokens=_int(stats.get("peak_daily_tokens")),
        longest_running_turn_sec=_int(stats.get("longest_running_turn_sec")),
        current_streak_days=_int(stats.get("current_streak_days")),
        longest_streak_days=_int(stats.get("longest_streak_days")),
    )


def _buckets(raw: object) -> list[al.AccountTokenUsageDailyBucket] | None:
    if not isinstance(raw, list):
        return None
    return [
        al.AccountTokenUsageDailyBucket(start_date=item["start_date"], tokens=item["tokens"])
        for item in raw
        if isinstance(item, dict)
        and _str(item.get("start_date")) is not None
        and _int(item.get("tokens")) is not None
    ]


def _group(raw: dict[str, Any]) -> al.ThreadUsageBreakdownGroup:
    return al.ThreadUsageBreakdownGroup(
        model=_str(raw.get("model")),
        reasoning_effort=_str(raw.get("reasoning_effort")),
        speed=_str(raw.get("speed")),
        estimated_usage_credits_micros=_int(raw.get("estimated_usage_credits_micros")) or 0,
        net_new_input_tokens=_int(raw.get("net_new_input_tokens")),
        cached_input_tokens=_int(raw.get("cached_input_tokens")),
        input_tokens=_int(raw.get("input_tokens")),
        output_tokens=_int(raw.get("output_tokens")),
        total_tokens=_int(raw.get("total_tokens")),
    )


def _thread_usage(body: dict[str, Any], thread_id: str) -> al.ThreadUsage | None:
    threads = body.get("threads")
    for raw in threads if isinstance(threads, list) else []:
        if isinstance(raw, dict) and raw.get("thread_id") == thread_id:
            groups = raw.get("groups")
            return al.ThreadUsage(
                thread_id=thread_id,
                estimated_usage_credits_micros=_int(raw.get("estimated_usage_credits_micros")) or 0,
                estimated_usage_usd_micros=_int(raw.get("estimated_usage_usd_micros")),
                native_usage_usd_micros=_int(raw.get("native_usage_usd_micros")),
                groups=[_group(g) for g in groups if isinstance(g, dict)] if isinstance(groups, list) else [],
            )
    return None


async def usage(
    state: ServerState, tokens: dict[str, str], thread_id: str | None
) -> al.GetAccountTokenUsageResponse:
    """The account's token statistics, or one thread's estimated usage.

    Raises:
        InternalError: the backend could not be reached or refused the read (Codex's message).
    """
    if thread_id is not None:
        what = "thread usage"
        body = {"thread_ids": [thread_id]}
        response = await backend.request(state, tokens, _THREAD_USAGE, what, body=body)
        if response.status_code == 404:
            return al.GetAccountTokenUsageResponse(summary=al.AccountTokenUsageSummary())
        if response.status_code != 200:
            raise backend.refused(what, "POST", str(response.request.url), response)
        estimate = _thread_usage(_json(response, what), thread_id)
        return al.GetAccountTokenUsageResponse(summary=al.AccountTokenUsageSummary(), thread_usage=estimate)
    what = "token usage profile"
    response = await backend.request(state, tokens, _PROFILE, what)
    if response.status_code != 200:
        raise backend.refused(what, "GET", str(response.request.url), response)
    raw = _json(response, what).get("stats")
    stats: dict[str, Any] = raw if isinstance(raw, dict) else {}
    return al.GetAccountTokenUsageResponse(
        summary=_summary(stats), daily_usage_buckets=_buckets(stats.get("daily_usage_buckets"))
    )


def _seconds(raw: object, response: httpx.Response, what: str) -> int | None:
    """An RFC 3339 time as Unix seconds; anything but text or null is a decode error, as in Codex."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise _undecodable(response, what, f"invalid type: {type(raw).__name__}, expected a string")
    try:
        moment = datetime.datetime.fromisoformat(raw)
    except ValueError:
        raise _undecodable(response, what, f"invalid RFC 3339 time {raw!r}") from None
    if moment.tzinfo is None:
        raise _undecodable(response, what, f"RFC 3339 time {raw!r} has no offset")
    return int(moment.timestamp() // 1)


def _message(raw: dict[str, Any], response: httpx.Response, what: str) -> al.WorkspaceMessage:
    message_id, body, kind = (
        _str(raw.get("message_id")),
        _str(raw.get("message_body")),
        raw.get("message_type"),
    )
    if message_id is None or body is None:
        raise _undecodable(response, what, "a message lacks message_id or message_body")
    return al.WorkspaceMessage(
        message_id=message_id,
        message_type=kind if kind in _MESSAGE_TYPES else "unknown",
        message_body=body,
        created_at=_seconds(raw.get("created_at"), response, what),
        archived_at=_seconds(raw.get("archived_at"), response, what),
    )


async def workspace_messages(state: ServerState, tokens: dict[str, str]) -> al.GetWorkspaceMessagesResponse:
    """The workspace's active messages; none, with the feature off, where the backend has no route.

    Raises:
        InternalError: the backend could not be reached, refused the read or answered nonsense.
    """
    what = "workspace messages"
    response = await backend.request(state, tokens, _MESSAGES, what, extra={"Cache-Control": "no-store"})
    if response.status_code == 404:
        return al.GetWorkspaceMessagesResponse(feature_enabled=False, messages=[])
    if response.status_code != 200:
        raise backend.refused(what, "GET", str(response.request.url), response)
    raw = _json(response, what).get("messages")
    if not isinstance(raw, list):
        raise _undecodable(response, what, "missing field `messages`")
    messages = [_message(item, response, what) for item in raw if isinstance(item, dict)]
    return al.GetWorkspaceMessagesResponse(feature_enabled=True, messages=messages)
