"""model/list as Codex 0.169.0 answers it for a Responses provider (observed on the real binary).

With an API key, with no account, and with a custom provider set to another model alike, Codex
lists its bundled presets: nine visible (`gpt-6.1-sol` the default, then `gpt-6-astra`,
`gpt-6-sol`, `gpt-6-luna`, `gpt-5.6-sol`, `gpt-6.1-terra`, `gpt-5.6-terra`, `gpt-5.6-luna`,
`gpt-5.5`); `includeHidden` adds `gpt-daybreak-blue-latest`, `gpt-daybreak-red-latest` (before
`gpt-5.5`) and `codex-auto-review` (last). Upgrades: gpt-5.6-sol, gpt-5.6-terra and gpt-5.5 → gpt-6-sol,
gpt-5.6-luna → gpt-6-luna. Efforts: low…ultra for most, up to max for gpt-6-luna, gpt-5.6-luna and
codex-auto-review, up to xhigh for gpt-5.5. Paging: `limit` 2 → two and `nextCursor` "2"; `limit` 0
→ one; cursor "9" → empty; "13" → -32600 "cursor 13 exceeds total models 9"; "x" → -32600
"invalid cursor: x".
"""

from __future__ import annotations

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcErrorReply

VISIBLE = [
    "gpt-6.1-sol", "gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-5.6-sol",
    "gpt-6.1-terra", "gpt-5.6-terra", "gpt-5.6-luna", "gpt-5.5",
]  # fmt: skip
ALL = [*VISIBLE[:8], "gpt-daybreak-blue-latest", "gpt-daybreak-red-latest", "gpt-5.5", "codex-auto-review"]
UP_TO_ULTRA = ["low", "medium", "high", "xhigh", "max", "ultra"]


async def test_the_bundled_presets_are_listed_whatever_the_configured_model(start_app: StartApp) -> None:
    server = await start_app()  # the fake provider, set to "gpt-test"
    visible = await server.request("model/list", {})
    everything = await server.request("model/list", {"includeHidden": True})

    assert [m["id"] for m in visible["data"]] == VISIBLE
    assert visible["nextCursor"] is None
    assert [m["id"] for m in everything["data"]] == ALL
    by_id = {m["id"]: m for m in everything["data"]}
    assert [m["id"] for m in everything["data"] if m["isDefault"]] == ["gpt-6.1-sol"]
    assert [m["id"] for m in everything["data"] if m["hidden"]] == [
        "gpt-daybreak-blue-latest",
        "gpt-daybreak-red-latest",
        "codex-auto-review",
    ]
    assert {k: m["upgrade"] for k, m in by_id.items() if m["upgrade"]} == {
        "gpt-5.6-sol": "gpt-6-sol",
        "gpt-5.6-terra": "gpt-6-sol",
        "gpt-5.6-luna": "gpt-6-luna",
        "gpt-5.5": "gpt-6-sol",
    }
    assert by_id["gpt-5.5"]["upgradeInfo"]["model"] == "gpt-6-sol"
    efforts = {k: [e["reasoningEffort"] for e in m["supportedReasoningEfforts"]] for k, m in by_id.items()}
    assert efforts["gpt-6.1-sol"] == UP_TO_ULTRA
    assert efforts["gpt-6-luna"] == efforts["codex-auto-review"] == UP_TO_ULTRA[:5]
    assert efforts["gpt-5.5"] == UP_TO_ULTRA[:4]
    assert {k: m["defaultReasoningEffort"] for k, m in by_id.items()}["gpt-6.1-sol"] == "low"
    assert by_id["gpt-6-sol"]["defaultReasoningEffort"] == "medium"
    assert by_id["gpt-6-sol"]["defaultServiceTier"] == "priority"
    assert by_id["gpt-daybreak-red-latest"]["modelSpecialty"] == "cyber"
    assert [(t["id"], t["name"]) for t in by_id["gpt-6.1-sol"]["serviceTiers"]] == [("priority", "Fast")]


async def test_model_list_pages_as_codex_does(start_app: StartApp) -> None:
    server = await start_app()
    two = await server.request("model/list", {"limit": 2})
    zero = await server.request("model/list", {"limit": 0})
    end = await server.request("model/list", {"cursor": "9"})
    refused = []
    for cursor in ("13", "x"):
        with pytest.raises(RpcErrorReply) as caught:
            await server.request("model/list", {"cursor": cursor})
        refused.append((caught.value.code, caught.value.message))

    assert ([m["id"] for m in two["data"]], two["nextCursor"]) == (VISIBLE[:2], "2")
    assert ([m["id"] for m in zero["data"]], zero["nextCursor"]) == (VISIBLE[:1], "1")
    assert end == {"data": [], "nextCursor": None}
    assert refused == [(-32600, "cursor 13 exceeds total models 9"), (-32600, "invalid cursor: x")]
