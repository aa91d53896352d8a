"""Placeholders for what changes from run to run, and the removal of Codex's instruction prose.

A transcript is only useful as a reference if two recordings of the same scenario can be compared, so
every value that depends on the run — the scratch paths, the host name, ids, timestamps, durations,
process ids — becomes a placeholder. Ids are numbered by first appearance (`<ID1>`, `<ID2>`, …) so
that the transcript still shows which messages name the same thread, turn or item.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

TIMESTAMP_KEYS = frozenset(
    {
        "completedAt",
        "completedAtMs",
        "createdAt",
        "emittedAtMs",
        "recencyAt",
        "sectionEnteredAt",
        "startedAt",
        "startedAtMs",
        "updatedAt",
    }
)
KEY_PLACEHOLDERS = {"durationMs": "<DUR>", "processId": "<PID>"}
PROSE = "<Codex base instructions and permission text: Codex prose, not reproduced; write Tether's own>"
"""What stands in for Codex's instructions in the recorded request bodies: they are OpenAI's text, and
Tether must write its own rather than copy them."""

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ROLLOUT = re.compile(r"sessions/\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}")
_PROSE_ROLES = frozenset({"developer", "system"})


def scratch_paths(home: Path, work: Path) -> dict[str, str]:
    """path -> placeholder for the scratch home and project, as given and as resolved (Codex may
    report either spelling)."""
    named = {str(home): "<CODEX_HOME>", str(work): "<WORKDIR>"}
    return named | {os.path.realpath(path): placeholder for path, placeholder in named.items()}


def path_table(paths: dict[str, str]) -> list[tuple[str, str]]:
    """(path, placeholder) pairs, longest path first: a path inside another must be replaced before
    the outer one."""
    pairs = {path.rstrip("/"): placeholder for path, placeholder in paths.items() if path.rstrip("/")}
    return sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)


def replace_paths(text: str, paths: list[tuple[str, str]]) -> str:
    """`text` with every listed path replaced by its placeholder."""
    for path, placeholder in paths:
        text = text.replace(path, placeholder)
    return text


class Normaliser:
    """Turns the messages of one transcript, in log order, into their normalised form.

    Args:
        paths: path -> placeholder, e.g. ``{"/home/u/work": "<WORKDIR>"}``.
        hostname: the machine's name; a string equal to it becomes ``<HOSTNAME>``.
    """

    def __init__(self, paths: dict[str, str], hostname: str) -> None:
        self._paths = path_table(paths)
        self._hostname = hostname
        self._ids: dict[str, str] = {}

    def value(self, value: Any, key: str | None = None) -> Any:
        """`value` normalised; dict keys come out sorted, the order the transcript is written in,
        so that ids are numbered in the order a reader meets them."""
        if value is not None and not isinstance(value, bool | dict | list):
            if key == "developer_instructions" and isinstance(value, str):
                # A collaboration mode's settings carry Codex's mode instructions in full.
                return PROSE
            if key in TIMESTAMP_KEYS:
                return "<TS>"
            if key in KEY_PLACEHOLDERS:
                return KEY_PLACEHOLDERS[key]
        if isinstance(value, dict):
            return {k: self.value(value[k], k) for k in sorted(value)}
        if isinstance(value, list):
            return [self.value(item, key) for item in value]
        if isinstance(value, str):
            return self.text(value)
        return value

    def text(self, text: str) -> str:
        """One string normalised."""
        if self._hostname and text == self._hostname:
            return "<HOSTNAME>"
        text = replace_paths(text, self._paths)
        text = _ROLLOUT.sub("sessions/<DATE>/rollout-<DATETIME>", text)
        return _UUID.sub(self._id, text)

    def _id(self, match: re.Match[str]) -> str:
        found = match.group(0).lower()
        if found not in self._ids:
            self._ids[found] = f"<ID{len(self._ids) + 1}>"
        return self._ids[found]


def scrub_request_body(body: dict[str, Any], paths: dict[str, str]) -> dict[str, Any]:
    """A model request body as Codex sent it, minus its instruction prose and with paths replaced.

    The developer/system messages and the top-level `instructions` are Codex's own prompt text; their
    place in the request is kept (one placeholder part per message), their words are not.
    `client_metadata` is left out: per-run telemetry (installation, session and turn ids, the project's
    commit, a start time) that is not part of the conversation. The environment context, the user's
    input, the tool definitions and the history stay: they are what the model is sent.
    """
    scrubbed: dict[str, Any] = copy.deepcopy(body)
    scrubbed.pop("client_metadata", None)
    if isinstance(scrubbed.get("instructions"), str):
        scrubbed["instructions"] = PROSE
    for item in scrubbed.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") in _PROSE_ROLES:
            item["content"] = [{"type": "input_text", "text": PROSE}]
    table = path_table(paths)
    return {k: _map_strings(v, lambda s: replace_paths(s, table)) for k, v in scrubbed.items()}


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, dict):
        return {k: _map_strings(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, change) for v in value]
    if isinstance(value, str):
        return change(value)
    return value
