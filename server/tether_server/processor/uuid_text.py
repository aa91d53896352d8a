"""Codex's wording for an id that is not a UUID (its Rust `uuid` crate's parse errors)."""

from __future__ import annotations

import uuid

from tether_server.errors import InvalidRequest

_HEX = frozenset("0123456789abcdefABCDEF")
_PREFIX = "urn:uuid:"


def uuid_error(text: str) -> str | None:
    """Why `text` is not a UUID, in the crate's words; None when it is one."""
    try:
        uuid.UUID(text)
    except ValueError:
        pass
    else:
        return None
    body = text[len(_PREFIX) :] if text.startswith(_PREFIX) else text
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    offset = len(text) - len(body) - (1 if text.endswith("}") else 0)
    for index, char in enumerate(body):
        if char not in _HEX and char != "-":
            return (
                "invalid character: expected an optional prefix of `urn:uuid:` followed by "
                f"[0-9a-fA-F-], found `{char}` at {offset + index + 1}"
            )
    if "-" not in body:
        return f"invalid length: expected length 32 for simple format, found {len(body)}"
    groups = body.split("-")
    if len(groups) != 5:
        return f"invalid group count: expected 5, found {len(groups)}"
    for number, (group, want) in enumerate(zip(groups, (8, 4, 4, 4, 12), strict=True), start=1):
        if len(group) != want:
            return f"invalid group length in group {number - 1}: expected {want}, found {len(group)}"
    return "invalid length"


def check_thread_id(thread_id: str) -> None:
    """Refuse a thread id that is not a UUID, as Codex does before looking it up."""
    problem = uuid_error(thread_id)
    if problem is not None:
        raise InvalidRequest(f"invalid thread id: {problem}")
