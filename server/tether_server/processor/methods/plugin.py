"""`plugin/*`: plugins of local and git marketplaces (see `config.plugins`); the hosted catalog's
requests (remote marketplaces, remote plugin ids, skills of remote plugins, search) answer as
Codex does without ChatGPT sign-in."""

from __future__ import annotations

import asyncio
import re

from tether_protocol.common import EmptyResult
from tether_protocol.v2 import plugins as pl
from tether_server.config.plugins import catalog, ops
from tether_server.errors import InvalidRequest
from tether_server.processor import plugin_runtime
from tether_server.processor.methods import plugin_wire as pw
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext

_REMOTE_ID = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


def _api_key(state: ServerState) -> bool:
    return state.credentials.api_key() is not None


async def plugin_list(
    state: ServerState, ctx: RequestContext, params: pl.PluginListParams
) -> pl.PluginListResponse:
    if any(kind != "local" for kind in params.marketplace_kinds or []):
        raise pw.remote_unavailable("list remote plugin catalog", _api_key(state))
    home = state.home

    def build() -> pl.PluginListResponse:
        markets, errors = pw.known_marketplaces(home, params.cwds)
        entries = [pw.entry(m, [pw.summary(home, m, p) for p in m.plugins]) for m in markets]
        return pl.PluginListResponse(marketplaces=entries, marketplace_load_errors=errors)

    return await asyncio.to_thread(build)


async def plugin_installed(
    state: ServerState, ctx: RequestContext, params: pl.PluginInstalledParams
) -> pl.PluginInstalledResponse:
    home = state.home
    suggested = set(params.install_suggestion_plugin_names or [])

    def build() -> pl.PluginInstalledResponse:
        markets, errors = pw.known_marketplaces(home, params.cwds)
        entries = []
        for market in markets:
            plugins = [pw.summary(home, market, p) for p in market.plugins]
            shown = [p for p in plugins if p.installed or p.name in suggested]
            if shown:
                entries.append(pw.entry(market, shown))
        return pl.PluginInstalledResponse(marketplaces=entries, marketplace_load_errors=errors)

    return await asyncio.to_thread(build)


async def plugin_read(
    state: ServerState, ctx: RequestContext, params: pl.PluginReadParams
) -> pl.PluginReadResponse:
    file = pw.one_marketplace("plugin/read", params.marketplace_path, params.remote_marketplace_name)
    if file is None:
        raise pw.remote_unavailable("read remote plugin details", _api_key(state))
    home = state.home

    def build() -> pl.PluginReadResponse:
        market = ops.marketplace_at(file)
        return pl.PluginReadResponse(
            plugin=pw.detail(home, market, ops.find_plugin(market, params.plugin_name))
        )

    return await asyncio.to_thread(build)


async def plugin_install(
    state: ServerState, ctx: RequestContext, params: pl.PluginInstallParams
) -> pl.PluginInstallResponse:
    file = pw.one_marketplace("plugin/install", params.marketplace_path, params.remote_marketplace_name)
    if file is None:
        raise pw.remote_unavailable("read remote plugin details before install", _api_key(state))
    home = state.home

    def install() -> catalog.PluginEntry:
        return ops.install(home, ops.marketplace_at(file), params.plugin_name)

    async with plugin_runtime.changes():
        entry = await asyncio.to_thread(install)
        await plugin_runtime.apply_contributions(state)
    return pl.PluginInstallResponse(auth_policy=entry.auth_policy)


async def plugin_uninstall(
    state: ServerState, ctx: RequestContext, params: pl.PluginUninstallParams
) -> EmptyResult:
    name, at, market = params.plugin_id.partition("@")
    if not at:
        if not _REMOTE_ID.fullmatch(params.plugin_id):
            raise InvalidRequest("invalid remote plugin id")
        raise pw.remote_unavailable("resolve remote plugin before uninstall", _api_key(state))
    if not catalog.valid_name(name) or not catalog.valid_name(market):
        raise InvalidRequest("invalid remote plugin id")
    async with plugin_runtime.changes():
        await asyncio.to_thread(ops.uninstall, state.home, params.plugin_id)
        await plugin_runtime.apply_contributions(state)
    return EmptyResult()


async def plugin_reconcile(
    state: ServerState, ctx: RequestContext, params: pl.PluginReconcileParams
) -> pl.PluginReconcileResponse:
    return pl.PluginReconcileResponse()


async def plugin_skill_read(
    state: ServerState, ctx: RequestContext, params: pl.PluginSkillReadParams
) -> pl.PluginSkillReadResponse:
    raise pw.remote_unavailable("read remote plugin skill details", _api_key(state))


async def plugin_search(
    state: ServerState, ctx: RequestContext, params: pl.PluginSearchParams
) -> pl.PluginSearchResponse:
    return pl.PluginSearchResponse()
