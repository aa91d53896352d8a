"""`account/usage/read` and `account/workspaceMessages/read` with a ChatGPT account, against a fake backend.

Observed on Codex 0.169.0 with `chatgpt_base_url` at a loopback server that logged every request:
- usage/read: `GET /wham/profiles/me`; `{"stats": {lifetime_tokens, peak_daily_tokens,
  longest_running_turn_sec, current_streak_days, longest_streak_days, daily_usage_buckets:
  [{start_date, tokens}]}}` becomes `summary` + `dailyUsageBuckets`, `threadUsage` null.
- usage/read with a threadId: `POST /wham/usage/thread_usage/query` `{"thread_ids": [id]}` only;
  `{"threads": [{thread_id, estimated_usage_credits_micros, groups: [...]}]}` becomes `threadUsage`,
  the summary all null and `dailyUsageBuckets` null; a 404 answers that without `threadUsage`; a
  500 is -32603 "failed to fetch thread usage: POST <url> failed: 500 Internal Server Error; ...";
  a threadId that is no UUID: -32600 "invalid thread id: invalid length: expected length 32 for
  simple format, found 3".
- workspaceMessages/read: `GET /wham/workspace-messages` with `Cache-Control: no-store`; RFC 3339
  times become Unix seconds, an unknown message_type `unknown`; 404: `{"featureEnabled": false,
  "messages": []}`; 403: -32603 "failed to fetch workspace messages: GET <url> failed: 403
  Forbidden; content-type=application/json; body=...".
- profiles/me refused: -32603 "failed to fetch token usage profile: GET <url> failed: 500 ...".
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import StartApp
from tests.integration.settings_pages import fake_issuer
from tests.integration.settings_pages.fake_issuer import FakeIssuer
from tests.support.inprocess import InProcessServer
from tests.support.rpcclient import RpcErrorReply

THREAD = "0195a0a0-0000-7000-8000-000000000000"
PROFILE = {
    "stats": {
        "lifetime_tokens": 123456,
        "peak_daily_tokens": 9999,
        "longest_running_turn_sec": 77,
        "current_streak_days": 3,
        "daily_usage_buckets": [{"start_date": "2026-11-30", "tokens": 500}],
    }
}
MESSAGES = {
    "messages": [
        {"message_id": "m1", "message_type": "headline", "message_body": "Hello",
         "created_at": "2026-11-30T00:00:00Z", "archived_at": None},
        {"message_id": "m2", "message_type": "weird", "message_body": "B",
         "created_at": "2026-11-30T00:00:00.5+01:00"},
    ]
}  # fmt: skip
THREAD_USAGE = {
    "threads": [
        {"thread_id": THREAD, "estimated_usage_credits_micros": 5,
         "groups": [{"model": "m", "estimated_usage_credits_micros": 5, "input_tokens": 3}]}
    ]
}  # fmt: skip
EMPTY_SUMMARY = dict.fromkeys(
    ["lifetimeTokens", "peakDailyTokens", "longestRunningTurnSec", "currentStreakDays", "longestStreakDays"]
)


@pytest.fixture
def backend() -> Iterator[FakeIssuer]:
    with fake_issuer.serve() as fake:
        yield fake


async def _signed_in(start_app: StartApp, backend: FakeIssuer) -> InProcessServer:
    token = fake_issuer.id_token()
    backend.accepted_tokens = {token}
    server = await start_app("-c", f'chatgpt_base_url="{backend.base_url}/backend-api"')
    tokens = {"type": "chatgptAuthTokens", "accessToken": token, "chatgptAccountId": "acc-1"}
    await server.request("account/login/start", tokens)
    return server


async def _refusal(server: InProcessServer, method: str, params: dict[str, str]) -> tuple[object, str]:
    with pytest.raises(RpcErrorReply) as caught:
        await server.request(method, params)
    return caught.value.code, caught.value.message


async def test_usage_and_messages_are_read_from_the_backend(start_app: StartApp, backend: FakeIssuer) -> None:
    backend.routes = {
        "/wham/profiles/me": (200, PROFILE),
        "/wham/workspace-messages": (200, MESSAGES),
        "/wham/usage/thread_usage/query": (200, THREAD_USAGE),
    }
    server = await _signed_in(start_app, backend)

    usage = await server.request("account/usage/read", {})
    messages = await server.request("account/workspaceMessages/read", {})
    thread = await server.request("account/usage/read", {"threadId": THREAD})

    assert usage == {
        "summary": {"lifetimeTokens": 123456, "peakDailyTokens": 9999, "longestRunningTurnSec": 77,
                    "currentStreakDays": 3, "longestStreakDays": None},
        "dailyUsageBuckets": [{"startDate": "2026-11-30", "tokens": 500}],
        "threadUsage": None,
    }  # fmt: skip
    assert messages == {
        "featureEnabled": True,
        "messages": [
            {"messageId": "m1", "messageType": "headline", "messageBody": "Hello",
             "createdAt": 1795996800, "archivedAt": None},
            {"messageId": "m2", "messageType": "unknown", "messageBody": "B",
             "createdAt": 1795993200, "archivedAt": None},
        ],
    }  # fmt: skip
    group = {"model": "m", "reasoningEffort": None, "speed": None, "estimatedUsageCreditsMicros": 5,
             "netNewInputTokens": None, "cachedInputTokens": None, "inputTokens": 3,
             "outputTokens": None, "totalTokens": None}  # fmt: skip
    assert thread == {
        "summary": EMPTY_SUMMARY,
        "dailyUsageBuckets": None,
        "threadUsage": {"threadId": THREAD, "estimatedUsageCreditsMicros": 5, "estimatedUsageUsdMicros": None,
                        "nativeUsageUsdMicros": None, "groups": [group]},
    }  # fmt: skip
    seen = [
        (method, path, headers.get("Cache-Control"), body)
        for method, path, headers, body in backend.backend_requests
    ]
    assert seen == [
        ("GET", "/wham/profiles/me", None, None),
        ("GET", "/wham/workspace-messages", "no-store", None),
        ("POST", "/wham/usage/thread_usage/query", None, {"thread_ids": [THREAD]}),
    ]
    assert {headers["ChatGPT-Account-Id"] for _, _, headers, _ in backend.backend_requests} == {"acc-1"}


async def test_missing_routes_and_refusals_answer_as_codex(start_app: StartApp, backend: FakeIssuer) -> None:
    server = await _signed_in(start_app, backend)
    base = f"{backend.base_url}/backend-api/wham"

    backend.routes = {
        "/wham/workspace-messages": (404, {"detail": "not found"}),
        "/wham/usage/thread_usage/query": (404, {"detail": "not found"}),
    }
    no_messages = await server.request("account/workspaceMessages/read", {})
    no_estimate = await server.request("account/usage/read", {"threadId": THREAD})
    bad_thread = await _refusal(server, "account/usage/read", {"threadId": "abc"})

    backend.routes = {
        "/wham/profiles/me": (500, {"detail": "boom"}),
        "/wham/workspace-messages": (403, {"detail": "forbidden"}),
        "/wham/usage/thread_usage/query": (500, {"detail": "boom"}),
    }
    profile_refused = await _refusal(server, "account/usage/read", {})
    messages_refused = await _refusal(server, "account/workspaceMessages/read", {})
    thread_refused = await _refusal(server, "account/usage/read", {"threadId": THREAD})

    assert no_messages == {"featureEnabled": False, "messages": []}
    assert no_estimate == {"summary": EMPTY_SUMMARY, "dailyUsageBuckets": None, "threadUsage": None}
    assert bad_thread == (
        -32600,
        "invalid thread id: invalid length: expected length 32 for simple format, found 3",
    )
    tail = "content-type=application/json; body="
    assert profile_refused == (
        -32603,
        f"failed to fetch token usage profile: GET {base}/profiles/me failed: 500 Internal Server Error; "
        f'{tail}{{"detail": "boom"}}',
    )
    assert messages_refused == (
        -32603,
        f"failed to fetch workspace messages: GET {base}/workspace-messages failed: 403 Forbidden; "
        f'{tail}{{"detail": "forbidden"}}',
    )
    assert thread_refused == (
        -32603,
        f"failed to fetch thread usage: POST {base}/usage/thread_usage/query failed: "
        f'500 Internal Server Error; {tail}{{"detail": "boom"}}',
    )
