"""`marketplace/*`: plugin marketplaces from a local folder or a git repository (`config.plugins`)."""

from __future__ import annotations

import asyncio

from tether_protocol.v2 import plugins as pl
from tether_server.config.plugins import ops
from tether_server.processor import plugin_runtime
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext


async def marketplace_add(
    state: ServerState, ctx: RequestContext, params: pl.MarketplaceAddParams
) -> pl.MarketplaceAddResponse:
    async with plugin_runtime.changes():
        added = await asyncio.to_thread(
            ops.add_marketplace, state.home, params.source, params.ref_name, params.sparse_paths
        )
    return pl.MarketplaceAddResponse(
        marketplace_name=added.name, installed_root=str(added.root), already_added=added.already
    )


async def marketplace_remove(
    state: ServerState, ctx: RequestContext, params: pl.MarketplaceRemoveParams
) -> pl.MarketplaceRemoveResponse:
    async with plugin_runtime.changes():
        root = await asyncio.to_thread(ops.remove_marketplace, state.home, params.marketplace_name)
    return pl.MarketplaceRemoveResponse(
        marketplace_name=params.marketplace_name, installed_root=str(root) if root else None
    )


async def marketplace_upgrade(
    state: ServerState, ctx: RequestContext, params: pl.MarketplaceUpgradeParams
) -> pl.MarketplaceUpgradeResponse:
    async with plugin_runtime.changes():
        done = await asyncio.to_thread(ops.upgrade, state.home, params.marketplace_name)
    return pl.MarketplaceUpgradeResponse(
        selected_marketplaces=done.selected,
        upgraded_roots=[str(r) for r in done.roots],
        errors=[pl.MarketplaceUpgradeErrorInfo(marketplace_name=n, message=m) for n, m in done.errors],
    )
