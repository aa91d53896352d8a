"""`account/rateLimits/updated` from a model response's `x-codex-*` headers, as Codex 0.169.0 sends it.

Observed on the real binary (a custom provider keyed by its `env_key`, the fake model answering
with rate-limit headers): after `turn/started`, before the model's items, every client gets
`{"rateLimits": {"limitId": "codex", "limitName": null, "normalModelSlug": null,
"primary": {"usedPercent": 43, "windowDurationMins": 300, "resetsAt": 1796160000},
"secondary": {"usedPercent": 7, "windowDurationMins": 10080, "resetsAt": 1796700000},
"credits": {"hasCredits": true, "unlimited": false, "balance": "12.5"}, "individualLimit": null,
"spendControlReached": null, "planType": null, "rateLimitReachedType": null}}` for
`x-codex-primary-used-percent: 42.5` (rounded half up), `-window-minutes: 300`, `-reset-at`,
the same for `secondary`, and `x-codex-credits-has-credits|unlimited|balance`.
`account/rateLimits/read` afterwards still answers -32600 "codex account authentication required to
read rate limits": the headers do not make an account.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

HEADERS = {
    "x-codex-primary-used-percent": "42.5",
    "x-codex-primary-window-minutes": "300",
    "x-codex-primary-reset-at": "1796160000",
    "x-codex-secondary-used-percent": "7",
    "x-codex-secondary-window-minutes": "10080",
    "x-codex-secondary-reset-at": "1796700000",
    "x-codex-credits-has-credits": "true",
    "x-codex-credits-unlimited": "false",
    "x-codex-credits-balance": "12.5",
}


async def test_rate_limit_headers_become_an_update_before_the_items(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.message("hi"), headers=HEADERS))
    server = await start_app()
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]

    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)
    seen = await server.notification("account/rateLimits/updated", after=mark)
    order = [
        "agentMessage" if m["params"].get("item", {}).get("type") == "agentMessage" else m["method"]
        for m in server.since(mark)
        if "id" not in m
    ]
    with pytest.raises(RpcErrorReply) as read:
        await server.request("account/rateLimits/read")

    assert seen["params"] == {
        "rateLimits": {
            "limitId": "codex",
            "limitName": None,
            "normalModelSlug": None,
            "primary": {"usedPercent": 43, "windowDurationMins": 300, "resetsAt": 1796160000},
            "secondary": {"usedPercent": 7, "windowDurationMins": 10080, "resetsAt": 1796700000},
            "credits": {"hasCredits": True, "unlimited": False, "balance": "12.5"},
            "individualLimit": None,
            "spendControlReached": None,
            "planType": None,
            "rateLimitReachedType": None,
        }
    }
    assert (
        order.index("turn/started") < order.index("account/rateLimits/updated") < order.index("agentMessage")
    )
    assert order.count("account/rateLimits/updated") == 1
    assert (read.value.code, read.value.message) == (
        -32600,
        "codex account authentication required to read rate limits",
    )


async def test_a_response_without_limit_headers_sends_no_update(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.message("hi"), headers={"x-codex-primary-used-percent": "lots"}))
    server = await start_app()
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]

    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)

    assert "account/rateLimits/updated" not in [m.get("method") for m in server.since(mark)]


async def test_a_named_limit_family_is_sent_instead_of_the_default_one(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    # Observed: with `x-codex-other-*` beside the default headers, Codex sends only `codex_other`.
    headers = {
        "x-codex-primary-used-percent": "12.4",
        "x-codex-other-primary-used-percent": "50",
        "x-codex-other-limit-name": "Other",
    }
    fake_model.add(script.reply(script.message("hi"), headers=headers))
    server = await start_app()
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]

    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)
    updates = [m["params"] for m in server.since(mark) if m.get("method") == "account/rateLimits/updated"]

    assert updates == [
        {
            "rateLimits": {
                "limitId": "codex_other",
                "limitName": "Other",
                "normalModelSlug": None,
                "primary": {"usedPercent": 50, "windowDurationMins": None, "resetsAt": None},
                "secondary": None,
                "credits": None,
                "individualLimit": None,
                "spendControlReached": None,
                "planType": None,
                "rateLimitReachedType": None,
            }
        }
    ]
