"""Reference samples of the desktop-app thread methods: sections, metadata patches, injected items."""

from __future__ import annotations

from tests.unit.protocol import wire_samples as s

from tether_protocol.common import WireModel
from tether_protocol.v2 import thread_section as ts
from tether_protocol.v2.thread import ThreadSection

SECTION_ID = "01a232f8-92f5-7672-a422-03ec35425ea4"


def section_samples() -> list[tuple[str, WireModel]]:
    """(reference definition name, instance) for each model of `thread_section`."""
    look = ts.ThreadSectionAppearance(icon="star", color=None)
    section = ThreadSection(id=SECTION_ID, name="Work", appearance=look.wire())
    git = ts.ThreadMetadataGitInfoUpdateParams(branch="main")
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    return [
        ("ThreadSectionAppearance", look),
        ("ThreadSectionListParams", ts.ThreadSectionListParams(limit=2, cursor=SECTION_ID)),
        ("ThreadSectionListResponse", ts.ThreadSectionListResponse(data=[section], next_cursor=SECTION_ID)),
        ("ThreadSectionCreateParams", ts.ThreadSectionCreateParams(name="Work", appearance=look)),
        ("ThreadSectionCreateResponse", ts.ThreadSectionCreateResponse(section=section)),
        ("ThreadSectionUpdateParams", ts.ThreadSectionUpdateParams(section_id=SECTION_ID, name="Play")),
        ("ThreadSectionUpdateResponse", ts.ThreadSectionUpdateResponse(section=section)),
        ("ThreadSectionDeleteParams", ts.ThreadSectionDeleteParams(section_id=SECTION_ID)),
        ("ThreadSectionDeleteResponse", ts.ThreadSectionDeleteResponse()),
        (
            "ThreadSectionMoveParams",
            ts.ThreadSectionMoveParams(thread_id=s.THREAD_ID, section_id=SECTION_ID, before_thread_id=None),
        ),
        ("ThreadSectionMoveResponse", ts.ThreadSectionMoveResponse()),
        (
            "ThreadSectionChangedNotification",
            ts.ThreadSectionChangedNotification(thread_id=s.THREAD_ID, section_id=None),
        ),
        ("ThreadMetadataGitInfoUpdateParams", git),
        ("ThreadMetadataUpdateParams", ts.ThreadMetadataUpdateParams(thread_id=s.THREAD_ID, git_info=git)),
        ("ThreadMetadataUpdateResponse", ts.ThreadMetadataUpdateResponse(thread=s.THREAD)),
        ("ThreadInjectItemsParams", ts.ThreadInjectItemsParams(thread_id=s.THREAD_ID, items=[item])),
        ("ThreadInjectItemsResponse", ts.ThreadInjectItemsResponse()),
    ]
