"""`fuzzyFileSearch` and its session variants (the TUI's `@` file mentions).

The result fields are snake_case on the wire, as Codex sends them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from tether_protocol.common import WireModel

FuzzyFileSearchMatchType = Literal["file", "directory"]


class FuzzyFileSearchParams(WireModel):
    """`fuzzyFileSearch` params: a query over every root; a newer request with the same
    `cancellation_token` cancels this one."""

    query: str
    roots: list[str]
    cancellation_token: str | None = None


class FuzzyFileSearchResult(WireModel):
    """One match; `path` is relative to `root`, `indices` are the matched character positions in it."""

    model_config = ConfigDict(alias_generator=None)

    root: str
    path: str
    match_type: FuzzyFileSearchMatchType
    file_name: str
    score: int
    indices: list[int] | None = None


class FuzzyFileSearchResponse(WireModel):
    """`fuzzyFileSearch` result, best first."""

    files: list[FuzzyFileSearchResult]


class FuzzyFileSearchSessionStartParams(WireModel):
    """`fuzzyFileSearch/sessionStart`: index `roots` once for the queries that follow."""

    session_id: str
    roots: list[str]


class FuzzyFileSearchSessionStartResponse(WireModel):
    """`fuzzyFileSearch/sessionStart` result (`{}`)."""


class FuzzyFileSearchSessionUpdateParams(WireModel):
    """`fuzzyFileSearch/sessionUpdate`: a new query; results come as `sessionUpdated`."""

    session_id: str
    query: str


class FuzzyFileSearchSessionUpdateResponse(WireModel):
    """`fuzzyFileSearch/sessionUpdate` result (`{}`)."""


class FuzzyFileSearchSessionStopParams(WireModel):
    """`fuzzyFileSearch/sessionStop`."""

    session_id: str


class FuzzyFileSearchSessionStopResponse(WireModel):
    """`fuzzyFileSearch/sessionStop` result (`{}`)."""


class FuzzyFileSearchSessionUpdatedNotification(WireModel):
    """`fuzzyFileSearch/sessionUpdated`: the matches for `query`."""

    session_id: str
    query: str
    files: list[FuzzyFileSearchResult]


class FuzzyFileSearchSessionCompletedNotification(WireModel):
    """`fuzzyFileSearch/sessionCompleted`: the search for the latest query is done."""

    session_id: str
