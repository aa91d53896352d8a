"""Thread sections (`threadSection/*`, `thread/section/move`), `thread/metadata/update` and
`thread/inject_items`: how a desktop app groups threads and amends what a thread carries."""

from __future__ import annotations

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.v2.thread import Thread, ThreadSection


class ThreadSectionAppearance(WireModel):
    """How a section looks; both keys always present on output."""

    icon: str | None = None
    color: str | None = None


class ThreadSectionListParams(WireModel):
    """`threadSection/list` params (the cursor is the last section id of the previous page)."""

    cursor: str | None = None
    limit: int | None = None


class ThreadSectionListResponse(WireModel):
    """`threadSection/list` result: "Pinned" first, then sections in creation order."""

    data: list[ThreadSection]
    next_cursor: str | None = None


class ThreadSectionCreateParams(WireModel):
    """`threadSection/create` params."""

    name: str
    appearance: ThreadSectionAppearance | None = None


class ThreadSectionCreateResponse(WireModel):
    """`threadSection/create` result."""

    section: ThreadSection


class ThreadSectionUpdateParams(WireModel):
    """`threadSection/update` params: an omitted `appearance` keeps it, null clears it."""

    section_id: str
    name: str
    appearance: ThreadSectionAppearance | None = None


class ThreadSectionUpdateResponse(WireModel):
    """`threadSection/update` result."""

    section: ThreadSection


class ThreadSectionDeleteParams(WireModel):
    """`threadSection/delete` params."""

    section_id: str


class ThreadSectionDeleteResponse(WireModel):
    """`threadSection/delete` result (`{}`)."""


class ThreadSectionMoveParams(WireModel):
    """`thread/section/move` params: `sectionId` null takes the thread out of its section."""

    thread_id: str
    section_id: str | None
    before_thread_id: str | None = None


class ThreadSectionMoveResponse(WireModel):
    """`thread/section/move` result (`{}`)."""


class ThreadSectionChangedNotification(WireModel):
    """`thread/section/changed`: a thread moved into, within or out of a section."""

    thread_id: str
    section_id: str | None


class ThreadMetadataGitInfoUpdateParams(WireModel):
    """A patch of the stored git info: omitted keeps, null clears, a string replaces."""

    sha: str | None = None
    branch: str | None = None
    origin_url: str | None = None


class ThreadMetadataUpdateParams(WireModel):
    """`thread/metadata/update` params."""

    thread_id: str
    git_info: ThreadMetadataGitInfoUpdateParams | None = None


class ThreadMetadataUpdateResponse(WireModel):
    """`thread/metadata/update` result: the thread after the patch."""

    thread: Thread


class ThreadInjectItemsParams(WireModel):
    """`thread/inject_items` params: raw Responses API items for the model's history."""

    thread_id: str
    items: list[JsonValue]


class ThreadInjectItemsResponse(WireModel):
    """`thread/inject_items` result (`{}`)."""
