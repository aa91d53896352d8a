"""`fuzzyFileSearch` and its sessions: ranked paths under roots for the TUI's `@` mentions.

Roots follow the `fs_rules` (absolute, not the daemon's private paths, which are also left out of
what a root lists). The work runs in a worker thread under the connection's file-work cap. A newer
`fuzzyFileSearch` with the same `cancellationToken` supersedes an older one, which answers with no
files. A session lists its roots once; each `sessionUpdate` answers `{}` at once, then sends
`fuzzyFileSearch/sessionUpdated` and `fuzzyFileSearch/sessionCompleted` to that connection only.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tether_protocol import server_methods as sm
from tether_protocol.v2 import fuzzy as wire
from tether_server.processor import fs_rules
from tether_server.processor.fuzzy_sessions import Search
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification
from tether_server.tools.file_search.listing import Cancelled, list_root
from tether_server.tools.file_search.matcher import Corpus, rank

MAX_RESULTS = 50


async def _roots(state: ServerState, ctx: RequestContext, roots: list[str]) -> tuple[list[str], list[str]]:
    """The roots as the client named them (results echo them) and resolved (what is listed)."""
    private = fs_rules.private_paths(state)
    named = [fs_rules.absolute(root) for root in roots]
    real = await state.file_jobs.run(
        ctx.connection.id, lambda: [fs_rules.resolved(r, private) for r in named]
    )
    return named, real


def _list(roots: list[str], excluded: list[Path], search: Search) -> list[list[Corpus]]:
    out = []
    for root in roots:
        listing = list_root(root, excluded, search.cancelled)
        out.append([Corpus.of(listing.files, False), Corpus.of(listing.directories, True)])
    return out


def _search(
    roots: list[str], listings: list[list[Corpus]], query: str, search: Search
) -> list[wire.FuzzyFileSearchResult]:
    results = [
        wire.FuzzyFileSearchResult(
            root=root,
            path=match.path,
            match_type="directory" if match.is_directory else "file",
            file_name=match.path.rsplit("/", 1)[-1],
            score=match.score,
            indices=match.indices,
        )
        for root, listing in zip(roots, listings, strict=True)
        for match in rank(listing, query, MAX_RESULTS, search.cancelled)
    ]
    results.sort(key=lambda r: (-r.score, len(r.path), r.path))
    return results[:MAX_RESULTS]


def _list_and_search(
    roots: list[str], real_roots: list[str], excluded: list[Path], query: str, search: Search
) -> list[wire.FuzzyFileSearchResult]:
    return _search(roots, _list(real_roots, excluded, search), query, search)


async def search(
    state: ServerState, ctx: RequestContext, params: wire.FuzzyFileSearchParams
) -> wire.FuzzyFileSearchResponse:
    roots, real_roots = await _roots(state, ctx, params.roots)
    with state.fuzzy.search(ctx.connection.id, params.cancellation_token) as this:
        try:
            files = await state.file_jobs.run(
                ctx.connection.id,
                _list_and_search,
                roots,
                real_roots,
                fs_rules.private_paths(state),
                params.query,
                this,
            )
        except Cancelled:
            files = []
    return wire.FuzzyFileSearchResponse(files=files)


async def session_start(
    state: ServerState, ctx: RequestContext, params: wire.FuzzyFileSearchSessionStartParams
) -> wire.FuzzyFileSearchSessionStartResponse:
    roots, real_roots = await _roots(state, ctx, params.roots)
    state.fuzzy.start(ctx.connection.id, params.session_id, roots, real_roots)
    return wire.FuzzyFileSearchSessionStartResponse()


async def session_update(
    state: ServerState, ctx: RequestContext, params: wire.FuzzyFileSearchSessionUpdateParams
) -> wire.FuzzyFileSearchSessionUpdateResponse:
    session = state.fuzzy.get(ctx.connection.id, params.session_id)
    session.latest.superseded = True
    this = session.latest = Search()
    private = fs_rules.private_paths(state)

    async def run() -> None:
        try:
            if session.listings is None:
                listings = await state.file_jobs.run(
                    ctx.connection.id, _list, session.real_roots, private, this
                )
                session.listings = session.listings or listings
            files = await state.file_jobs.run(
                ctx.connection.id, _search, session.roots, session.listings, params.query, this
            )
        except Cancelled:
            return
        if this.superseded:
            return
        updated = wire.FuzzyFileSearchSessionUpdatedNotification(
            session_id=params.session_id, query=params.query, files=files
        )
        send_notification([ctx.connection], sm.FUZZY_FILE_SEARCH_SESSION_UPDATED, updated)
        done = wire.FuzzyFileSearchSessionCompletedNotification(session_id=params.session_id)
        send_notification([ctx.connection], sm.FUZZY_FILE_SEARCH_SESSION_COMPLETED, done)

    def launch() -> None:
        task = asyncio.get_running_loop().create_task(run())
        session.tasks.add(task)
        task.add_done_callback(session.tasks.discard)

    ctx.after_response(launch)
    return wire.FuzzyFileSearchSessionUpdateResponse()


async def session_stop(
    state: ServerState, ctx: RequestContext, params: wire.FuzzyFileSearchSessionStopParams
) -> wire.FuzzyFileSearchSessionStopResponse:
    state.fuzzy.stop(ctx.connection.id, params.session_id)
    return wire.FuzzyFileSearchSessionStopResponse()
