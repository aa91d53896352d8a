"""`feedback/save` and `feedback/upload`: a bug report bundle, kept locally or sent."""

from __future__ import annotations

from tether_protocol.common import WireModel


class FeedbackUploadParams(WireModel):
    """`feedback/upload` params."""

    classification: str
    reason: str | None = None
    thread_id: str | None = None
    include_logs: bool = False
    extra_log_files: list[str] | None = None
    tags: dict[str, str] | None = None


class FeedbackUploadResponse(WireModel):
    """`feedback/upload` result."""

    thread_id: str
    prompt_hash: str | None = None


class FeedbackSaveParams(FeedbackUploadParams):
    """`feedback/save` params: the upload's, and the absolute path of a ZIP that must not exist."""

    save_path: str


class FeedbackSaveResponse(WireModel):
    """`feedback/save` result."""

    saved_path: str
    thread_id: str
    prompt_hash: str | None = None
