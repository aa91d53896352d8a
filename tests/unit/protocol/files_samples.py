"""Reference samples of review/start, the fs/* family and fuzzy file search."""

from __future__ import annotations

from tether_protocol.common import WireModel
from tether_protocol.v2 import fs
from tether_protocol.v2 import fuzzy as fz
from tether_protocol.v2 import review_mode as rm
from tether_protocol.v2 import turn as tu


def files_samples() -> list[tuple[str, WireModel]]:
    """review/start, fs/*, fuzzyFileSearch and its sessions."""
    return [
        (
            "ReviewStartParams",
            rm.ReviewStartParams(
                thread_id="t", target=rm.UncommittedChangesReviewTarget(), delivery="inline"
            ),
        ),
        (
            "ReviewStartParams",
            rm.ReviewStartParams(thread_id="t", target=rm.BaseBranchReviewTarget(branch="main")),
        ),
        (
            "ReviewStartParams",
            rm.ReviewStartParams(thread_id="t", target=rm.CommitReviewTarget(sha="abc", title="x")),
        ),
        (
            "ReviewStartParams",
            rm.ReviewStartParams(thread_id="t", target=rm.CustomReviewTarget(instructions="i")),
        ),
        ("ReviewTarget", rm.UncommittedChangesReviewTarget()),
        ("ReviewTarget", rm.BaseBranchReviewTarget(branch="main")),
        ("ReviewTarget", rm.CommitReviewTarget(sha="abc")),
        ("ReviewTarget", rm.CustomReviewTarget(instructions="i")),
        (
            "ReviewStartResponse",
            rm.ReviewStartResponse(
                turn=tu.Turn.model_validate(
                    {
                        "id": "u",
                        "items": [],
                        "status": "inProgress",
                        "itemsView": "notLoaded",
                        "rootTurnId": "u",
                    }
                ),
                review_thread_id="t",
            ),
        ),
        ("FsReadFileResponse", fs.FsReadFileResponse(data_base64="aGVsbG8gZmlsZQo=")),
        ("FsWriteFileParams", fs.FsWriteFileParams(path="/tmp/f", data_base64="aGk=")),
        ("FsWriteFileResponse", fs.FsWriteFileResponse()),
        ("FsCreateDirectoryParams", fs.FsCreateDirectoryParams(path="/tmp/d", recursive=False)),
        ("FsCreateDirectoryResponse", fs.FsCreateDirectoryResponse()),
        ("FsGetMetadataParams", fs.FsGetMetadataParams(path="/tmp/f")),
        (
            "FsGetMetadataResponse",
            fs.FsGetMetadataResponse(
                is_directory=False, is_file=True, is_symlink=False, created_at_ms=0, modified_at_ms=1
            ),
        ),
        ("FsReadDirectoryParams", fs.FsReadDirectoryParams(path="/tmp")),
        (
            "FsReadDirectoryResponse",
            fs.FsReadDirectoryResponse(
                entries=[fs.FsReadDirectoryEntry(file_name="f", is_directory=False, is_file=True)]
            ),
        ),
        ("FsReadDirectoryEntry", fs.FsReadDirectoryEntry(file_name="d", is_directory=True, is_file=False)),
        ("FsRemoveParams", fs.FsRemoveParams(path="/tmp/f", recursive=True, force=None)),
        ("FsRemoveResponse", fs.FsRemoveResponse()),
        ("FsCopyParams", fs.FsCopyParams(source_path="/tmp/a", destination_path="/tmp/b", recursive=True)),
        ("FsCopyResponse", fs.FsCopyResponse()),
        ("FsWatchParams", fs.FsWatchParams(path="/tmp", watch_id="w")),
        ("FsWatchResponse", fs.FsWatchResponse(path="/tmp")),
        ("FsUnwatchParams", fs.FsUnwatchParams(watch_id="w")),
        ("FsUnwatchResponse", fs.FsUnwatchResponse()),
        ("FsChangedNotification", fs.FsChangedNotification(watch_id="w", changed_paths=["/tmp/f"])),
        (
            "FuzzyFileSearchParams",
            fz.FuzzyFileSearchParams(query="mai", roots=["/r"], cancellation_token="t"),
        ),
        (
            "FuzzyFileSearchResult",
            fz.FuzzyFileSearchResult(
                root="/r",
                path="src/main.py",
                match_type="file",
                file_name="main.py",
                score=90,
                indices=[0, 4],
            ),
        ),
        (
            "FuzzyFileSearchSessionUpdatedNotification",
            fz.FuzzyFileSearchSessionUpdatedNotification(
                session_id="s",
                query="mai",
                files=[
                    fz.FuzzyFileSearchResult(
                        root="/r",
                        path="src/main.py",
                        match_type="file",
                        file_name="main.py",
                        score=90,
                        indices=[0, 4],
                    )
                ],
            ),
        ),
        (
            "FuzzyFileSearchSessionCompletedNotification",
            fz.FuzzyFileSearchSessionCompletedNotification(session_id="s"),
        ),
    ]


def files_schemaless() -> dict[str, WireModel]:
    """The fuzzy search answers and sessions: only in the experimental schema."""
    return {
        "FuzzyFileSearchResponse": fz.FuzzyFileSearchResponse(files=[]),
        "FuzzyFileSearchSessionStartParams": fz.FuzzyFileSearchSessionStartParams(
            session_id="s", roots=["/r"]
        ),
        "FuzzyFileSearchSessionStartResponse": fz.FuzzyFileSearchSessionStartResponse(),
        "FuzzyFileSearchSessionUpdateParams": fz.FuzzyFileSearchSessionUpdateParams(
            session_id="s", query="q"
        ),
        "FuzzyFileSearchSessionUpdateResponse": fz.FuzzyFileSearchSessionUpdateResponse(),
        "FuzzyFileSearchSessionStopParams": fz.FuzzyFileSearchSessionStopParams(session_id="s"),
        "FuzzyFileSearchSessionStopResponse": fz.FuzzyFileSearchSessionStopResponse(),
    }
