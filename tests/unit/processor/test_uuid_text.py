"""Ids that are not UUIDs get the words Codex 0.169.0 answered for them (`experimentalFeature/list`'s
`threadId`, observed on the real binary); UUIDs in every form it takes pass."""

from __future__ import annotations

import pytest

from tether_server.processor.uuid_text import uuid_error

CHAR = "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found "


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nope", CHAR + "`n` at 1"),
        ("gggg", CHAR + "`g` at 1"),
        ("urn:uuid:zz", CHAR + "`z` at 10"),
        ("abc", "invalid length: expected length 32 for simple format, found 3"),
        ("", "invalid length: expected length 32 for simple format, found 0"),
        ("0" * 33, "invalid length: expected length 32 for simple format, found 33"),
        ("0000-1111", "invalid group count: expected 5, found 2"),
        ("{abc}", "invalid group count: expected 5, found 1"),
        ("00000000-0000-0000-0000-000000000000-1", "invalid group count: expected 5, found 6"),
        ("00000000-0000-0000-0000-00000000000", "invalid group length in group 4: expected 12, found 11"),
        ("00000000-00000-000-0000-000000000000", "invalid group length in group 1: expected 4, found 5"),
        ("a-b-c-d-e", "invalid group length in group 0: expected 8, found 1"),
    ],
)
def test_codexs_words_for_what_is_not_a_uuid(text: str, message: str) -> None:
    assert uuid_error(text) == message


@pytest.mark.parametrize(
    "text",
    [
        "0" * 32,
        "00000000-0000-0000-0000-000000000000",
        "{00000000-0000-0000-0000-000000000000}",
        "urn:uuid:00000000-0000-0000-0000-000000000000",
        "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b",
    ],
)
def test_uuids_pass(text: str) -> None:
    assert uuid_error(text) is None
