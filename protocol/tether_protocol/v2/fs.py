"""`fs/readFile`."""

from __future__ import annotations

from tether_protocol.common import WireModel


class FsReadFileParams(WireModel):
    """`fs/readFile` params; `path` must be absolute."""

    path: str


class FsReadFileResponse(WireModel):
    """`fs/readFile` result: the file's bytes, base64."""

    data_base64: str
