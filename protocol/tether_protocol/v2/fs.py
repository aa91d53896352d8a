"""The `fs/*` family: host file access by absolute path, and `fs/changed` for `fs/watch`."""

from __future__ import annotations

from tether_protocol.common import WireModel


class FsReadFileParams(WireModel):
    """`fs/readFile` params; `path` must be absolute."""

    path: str


class FsReadFileResponse(WireModel):
    """`fs/readFile` result: the file's bytes, base64."""

    data_base64: str


class FsWriteFileParams(WireModel):
    """`fs/writeFile` params: the whole new content, base64."""

    path: str
    data_base64: str


class FsWriteFileResponse(WireModel):
    """`fs/writeFile` result (`{}`)."""


class FsCreateDirectoryParams(WireModel):
    """`fs/createDirectory` params; `recursive` (default true) also creates the parents."""

    path: str
    recursive: bool | None = None


class FsCreateDirectoryResponse(WireModel):
    """`fs/createDirectory` result (`{}`)."""


class FsGetMetadataParams(WireModel):
    """`fs/getMetadata` params."""

    path: str


class FsGetMetadataResponse(WireModel):
    """`fs/getMetadata` result; times are Unix milliseconds, 0 when unknown."""

    is_directory: bool
    is_file: bool
    is_symlink: bool
    created_at_ms: int
    modified_at_ms: int


class FsReadDirectoryParams(WireModel):
    """`fs/readDirectory` params."""

    path: str


class FsReadDirectoryEntry(WireModel):
    """One direct child: its name only, and what it resolves to."""

    file_name: str
    is_directory: bool
    is_file: bool


class FsReadDirectoryResponse(WireModel):
    """`fs/readDirectory` result."""

    entries: list[FsReadDirectoryEntry]


class FsRemoveParams(WireModel):
    """`fs/remove` params; `recursive` and `force` (a missing path is not an error) default true."""

    path: str
    recursive: bool | None = None
    force: bool | None = None


class FsRemoveResponse(WireModel):
    """`fs/remove` result (`{}`)."""


class FsCopyParams(WireModel):
    """`fs/copy` params; a directory needs `recursive`."""

    source_path: str
    destination_path: str
    recursive: bool = False


class FsCopyResponse(WireModel):
    """`fs/copy` result (`{}`)."""


class FsWatchParams(WireModel):
    """`fs/watch` params; `watch_id` is chosen by the client, unique on its connection."""

    path: str
    watch_id: str


class FsWatchResponse(WireModel):
    """`fs/watch` result: the canonical path being watched."""

    path: str


class FsUnwatchParams(WireModel):
    """`fs/unwatch` params."""

    watch_id: str


class FsUnwatchResponse(WireModel):
    """`fs/unwatch` result (`{}`)."""


class FsChangedNotification(WireModel):
    """`fs/changed`: paths under a watch changed (sent only to the watching connection)."""

    watch_id: str
    changed_paths: list[str]
