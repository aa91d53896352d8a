"""Codex's wording for an id that is not a UUID (its Rust `uuid` crate's parse errors).

The forms it takes: 32 hex digits, or five hyphenated groups of 8-4-4-4-12, either bare, in braces
or after `urn:uuid:`. Python's `uuid.UUID` is laxer (hyphens anywhere), so the check is its own.
"""

from __future__ import annotations

from tether_server.errors import InvalidRequest

_HEX = frozenset("0123456789abcdefABCDEF")
_PREFIX = "urn:uuid:"
_GROUPS = (8, 4, 4, 4, 12)


def uuid_error(text: str) -> str | None:
    """Why `text` is not a UUID, in the crate's words; None when it is one."""
    body, offset, grouped = text, 0, False
    if text.startswith(_PREFIX):
        body, offset = text[len(_PREFIX) :], len(_PREFIX)
    elif len(text) >= 2 and text.startswith("{") and text.endswith("}"):
        body, offset, grouped = text[1:-1], 1, True
    for index, char in enumerate(body):
        if char not in _HEX and char != "-":
            return (
                "invalid character: expected an optional prefix of `urn:uuid:` followed by "
                f"[0-9a-fA-F-], found `{char}` at {offset + index + 1}"
            )
    if not grouped and "-" not in body:
        if len(body) != 32:
            return f"invalid length: expected length 32 for simple format, found {len(body)}"
        return None
    groups = body.split("-")
    if len(groups) != len(_GROUPS):
        return f"invalid group count: expected 5, found {len(groups)}"
    for number, (group, want) in enumerate(zip(groups, _GROUPS, strict=True)):
        if len(group) != want:
            return f"invalid group length in group {number}: expected {want}, found {len(group)}"
    return None


def check_thread_id(thread_id: str) -> None:
    """Refuse a thread id that is not a UUID, as Codex does before looking it up."""
    problem = uuid_error(thread_id)
    if problem is not None:
        raise InvalidRequest(f"invalid thread id: {problem}")
