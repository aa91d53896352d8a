"""Thread attachments (`thread/attachment/*`, `thread/attachmentOwner/list`), approving an action
the automatic reviewer denied, and queued follow-up messages (`thread/queue/*`)."""

from __future__ import annotations

from typing import Literal

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.v2.inputs import UserInput
from tether_protocol.v2.turn import Turn


class ThreadAttachment(WireModel):
    """An attachment kept with its thread, named by (type, identity key) within the thread."""

    id: str
    attachment_type: str
    identity_key: str
    payload: JsonValue
    created_at: int


class ThreadAttachmentAddParams(WireModel):
    """`thread/attachment/add` params; `payload` is required (null is a payload)."""

    thread_id: str
    attachment_type: str
    identity_key: str
    payload: JsonValue


class ThreadAttachmentAddResponse(WireModel):
    """`thread/attachment/add` result: the new attachment, or the one already there."""

    attachment: ThreadAttachment
    outcome: Literal["created", "existing"]


class ThreadAttachmentListParams(WireModel):
    """`thread/attachment/list` params."""

    thread_id: str
    cursor: str | None = None
    limit: int | None = None


class ThreadAttachmentListResponse(WireModel):
    """`thread/attachment/list` result, oldest first."""

    data: list[ThreadAttachment]
    next_cursor: str | None = None


class ThreadAttachmentRemoveParams(WireModel):
    """`thread/attachment/remove` params."""

    thread_id: str
    attachment_type: str
    identity_key: str


class ThreadAttachmentRemoveResponse(WireModel):
    """`thread/attachment/remove` result (also when there was nothing to remove)."""


class ThreadAttachmentOwner(WireModel):
    """A thread holding an attachment of the asked identity."""

    thread_id: str
    archived: bool


class ThreadAttachmentOwnerListParams(WireModel):
    """`thread/attachmentOwner/list` params: null `archived` lists every owner."""

    attachment_type: str
    identity_key: str
    archived: bool | None = None
    cursor: str | None = None
    limit: int | None = None


class ThreadAttachmentOwnerListResponse(WireModel):
    """`thread/attachmentOwner/list` result, by thread id."""

    data: list[ThreadAttachmentOwner]
    next_cursor: str | None = None


class ThreadAttachmentUpdatedNotification(WireModel):
    """`thread/attachment/updated`: an attachment was created or deleted."""

    thread_id: str
    attachment_type: str
    identity_key: str
    attachment_id: str
    operation: Literal["created", "deleted"]


class ThreadApproveGuardianDeniedActionParams(WireModel):
    """`thread/approveGuardianDeniedAction` params; `event` is a reviewer assessment (snake_case)."""

    thread_id: str
    event: JsonValue


class ThreadApproveGuardianDeniedActionResponse(WireModel):
    """`thread/approveGuardianDeniedAction` result."""


class QueuedSubmission(WireModel):
    """A follow-up message waiting for its thread's current turn to end."""

    id: str
    input: list[UserInput]
    client_user_message_id: str
    responsesapi_client_metadata: dict[str, str] | None = None


class ThreadQueueAddParams(WireModel):
    """`thread/queue/add` params."""

    thread_id: str
    client_user_message_id: str
    input: list[UserInput]
    responsesapi_client_metadata: dict[str, str] | None = None


class ThreadQueueAddResponse(WireModel):
    """`thread/queue/add` result."""

    queued_submission: QueuedSubmission


class ThreadQueueListParams(WireModel):
    """`thread/queue/list` params; the cursor is the index of the next message."""

    thread_id: str
    cursor: str | None = None
    limit: int | None = None


class ThreadQueueListResponse(WireModel):
    """`thread/queue/list` result, in the order the messages will start."""

    data: list[QueuedSubmission]
    next_cursor: str | None = None


class ThreadQueueUpdateParams(WireModel):
    """`thread/queue/update` params: empty or omitted metadata keeps the message's metadata."""

    thread_id: str
    queued_submission_id: str
    input: list[UserInput]
    responsesapi_client_metadata: dict[str, str] | None = None


class ThreadQueueUpdateResponse(WireModel):
    """`thread/queue/update` result."""

    queued_submission: QueuedSubmission


class ThreadQueueDeleteParams(WireModel):
    """`thread/queue/delete` params."""

    thread_id: str
    queued_submission_id: str


class ThreadQueueDeleteResponse(WireModel):
    """`thread/queue/delete` result: whether a message was removed."""

    deleted: bool


class ThreadQueueReorderParams(WireModel):
    """`thread/queue/reorder` params: every queued id, exactly once, in the new order."""

    thread_id: str
    queued_submission_ids: list[str]


class ThreadQueueReorderResponse(WireModel):
    """`thread/queue/reorder` result."""


class ThreadQueueStartParams(WireModel):
    """`thread/queue/start` params: the message to start now (omitted: the first)."""

    thread_id: str
    queued_submission_id: str | None = None


class ThreadQueueStartResponse(WireModel):
    """`thread/queue/start` result: the turn it started."""

    turn: Turn


class ThreadQueueChangedNotification(WireModel):
    """`thread/queue/changed`: a thread's queue gained, lost, changed or reordered messages."""

    thread_id: str
