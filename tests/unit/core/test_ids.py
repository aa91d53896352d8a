"""Ids sort in the order they were made, also within one millisecond (sections and items are listed
in id order)."""

from __future__ import annotations

import uuid

from tether_server.core.ids import uuid7


def test_ids_made_in_a_burst_sort_in_the_order_they_were_made() -> None:
    ids = [uuid7() for _ in range(5000)]  # thousands land in the same millisecond
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)


def test_ids_are_version_7_with_the_rfc_variant() -> None:
    for raw in (uuid7() for _ in range(100)):
        parsed = uuid.UUID(raw)
        assert parsed.version == 7
        assert parsed.variant == uuid.RFC_4122
