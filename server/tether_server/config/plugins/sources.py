"""What a client may name as a marketplace source, checked before anything runs.

A source is a local folder (an absolute path, or `~/`), a git URL (`https://`, `http://`,
`ssh://`, or scp-like `user@host:path`) or GitHub's `owner/repo`; like Codex, nothing else is
accepted (`file://`, `git://`, `ext::`, option-looking strings). What reaches `git` is one of
those, passed after `--`, so it is never read as an option or a transport helper; a `refName` and
the `sparsePaths` are checked the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tether_server.errors import InvalidRequest

EMPTY = "marketplace source must not be empty"
BAD_FORMAT = "invalid marketplace source format; expected owner/repo, a git URL, or a local marketplace path"
_URL = re.compile(r"^(https?|ssh)://[A-Za-z0-9._~%@:\[\]-]+(/[A-Za-z0-9._~%+@:/-]*)?$")
_SCP = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[A-Za-z0-9._~/-]+$")
_OWNER_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$")
_REF = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]{0,254}$")


@dataclass(frozen=True)
class Source:
    """A checked source: `local` (a folder) or `git` (a URL for `git clone`)."""

    kind: Literal["local", "git"]
    value: str


def parse_source(raw: str) -> Source:
    """Classify `raw` as Codex does.

    Raises:
        InvalidRequest: empty, or none of the accepted forms (Codex's messages).
    """
    text = raw.strip()
    if not text:
        raise InvalidRequest(EMPTY)
    if any(ord(c) < 0x20 or c.isspace() for c in text):
        raise InvalidRequest(BAD_FORMAT)
    if text.startswith(("/", "~/")):
        return Source("local", text)
    if _URL.fullmatch(text) or _SCP.fullmatch(text):
        return Source("git", text)
    if _OWNER_REPO.fullmatch(text) and ".." not in text:
        repo = text.removesuffix(".git")
        return Source("git", f"https://github.com/{repo}.git")
    raise InvalidRequest(BAD_FORMAT)


def local_root(value: str) -> Path:
    """The folder a local source names, resolved.

    Raises:
        InvalidRequest: it does not exist (Codex's message).
    """
    try:
        return Path(value).expanduser().resolve(strict=True)
    except OSError as exc:
        raise InvalidRequest(
            f"failed to resolve local marketplace source path: {exc.strerror} (os error {exc.errno})"
        ) from None


def check_ref(ref: str | None) -> str | None:
    if ref is None:
        return None
    if not _REF.fullmatch(ref) or ".." in ref or ref.endswith((".lock", "/", ".")):
        raise InvalidRequest(f"invalid refName: {ref!r}")
    return ref


def check_sparse_paths(paths: list[str] | None) -> list[str]:
    checked: list[str] = []
    for path in paths or []:
        parts = Path(path).parts
        if not path or path.startswith(("-", "/", "!")) or ".." in parts or any(ord(c) < 0x20 for c in path):
            raise InvalidRequest(f"invalid sparse path: {path!r}")
        checked.append(path)
    return checked
