"""The `initialize` answer, and the stdio front that gives it while the daemon is still loading.

A stdio client's first frame is its `initialize`. The front (`answer_first_frame`) reads that frame
before pydantic, asyncio and the app graph have loaded, and answers a plainly valid `initialize`
itself with the very fields the full handler would return (both build them with
`initialize_result`). Anything else (bad JSON, another method, params the full validator might
judge differently) is left unanswered and reaches the dispatcher untouched, with the bytes read
behind it. Standard library only: orjson alone would add a third to Python's own start-up.
"""

from __future__ import annotations

import json
import os
import platform
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tether_protocol import CODEX_PROTOCOL_VERSION, jsonrpc
from tether_server.transports.stdio_first import Prefill, read_first_frame

HEADER_VALUE = re.compile(r"^[\t\x20-\x7e\x80-\xff]*$")
"""What `clientInfo.name` may hold: it becomes the originator header Codex sends upstream."""

_MESSAGE_KEYS = frozenset({"id", "method", "params", "jsonrpc"})
_PARAMS_KEYS = frozenset({"clientInfo", "capabilities"})
_CLIENT_INFO_KEYS = frozenset({"name", "title", "version"})
_CAPABILITY_KEYS = frozenset(
    {"experimentalApi", "optOutNotificationMethods", "requestAttestation", "extensions"}
)


def _os_description() -> str:
    try:
        info = platform.freedesktop_os_release()
        name, version = info.get("NAME", "Linux").split(" ")[0], info.get("VERSION_ID", "")
    except OSError:
        name, version = platform.system(), platform.release()
    return f"{name} {version}".strip()


def initialize_result(
    *, originator: str, client_name: str, client_version: str, home: Path, version: str
) -> dict[str, str]:
    """`InitializeResponse` in wire form (keys in the model's field order)."""
    # Clients parse the protocol version right after the first "/", so Codex's version goes there;
    # Tether's own version follows in the product list.
    ua = (
        f"{originator}/{CODEX_PROTOCOL_VERSION} ({_os_description()}; {platform.machine()}) "
        f"tether/{version} ({client_name}; {client_version})"
    )
    return {
        "userAgent": ua,
        "codexHome": str(home),
        "platformFamily": "unix" if platform.system() != "Windows" else "windows",
        "platformOs": platform.system().lower(),
    }


class Hello:
    """A connection's handshake as the front answered it: what the dispatcher records at
    `initialize` (client, capabilities), handed to the full server."""

    __slots__ = (
        "answered_ns",
        "client_name",
        "client_version",
        "experimental_api",
        "opt_out",
        "received_ns",
        "request_id",
    )

    def __init__(
        self,
        request_id: jsonrpc.RequestId,
        client_name: str,
        client_version: str,
        experimental_api: bool,
        opt_out: frozenset[str],
    ) -> None:
        self.request_id = request_id
        self.client_name = client_name
        self.client_version = client_version
        self.experimental_api = experimental_api
        self.opt_out = opt_out
        # Wall-clock span of the early answer, for the `initialize` span the server records later.
        self.received_ns = time.time_ns()
        self.answered_ns = self.received_ns


class _NotPlain(ValueError):
    pass


def _reject(_text: str) -> Any:
    raise _NotPlain


def _int(text: str) -> int:
    value = int(text)
    if not -(2**63) <= value < 2**64:  # beyond orjson's integers: the dispatcher's parser refuses it
        raise _NotPlain
    return value


def _strict_json(frame: bytes) -> object:
    """`frame` parsed when the dispatcher's parser (orjson) surely parses it the same, else None.

    The standard parser also takes NaN/Infinity, lone surrogates, huge integers, a BOM and other
    encodings than UTF-8; such a frame is left to the dispatcher. Floats have no place in a plain
    handshake either.
    """
    if b"\\ud" in frame.lower():
        return None
    try:
        return json.loads(frame.decode("utf-8"), parse_constant=_reject, parse_float=_reject, parse_int=_int)
    except (ValueError, RecursionError):  # _NotPlain, JSONDecodeError, UnicodeDecodeError
        return None


def plain_initialize(frame: bytes) -> Hello | None:
    """The handshake in `frame` when it is an `initialize` the full server would surely accept.

    Deliberately narrow: every key known, every value of the exact JSON type the params model
    declares. A frame that is anything else returns None and is answered by the full server.
    """
    message = _strict_json(frame)
    if (
        not isinstance(message, dict)
        or message.keys() - _MESSAGE_KEYS
        or message.get("method") != "initialize"
    ):
        return None
    request_id = message.get("id")
    params = message.get("params")
    if not isinstance(request_id, str | int) or not jsonrpc.is_request_id(request_id):
        return None
    if not isinstance(params, dict) or params.keys() - _PARAMS_KEYS:
        return None
    info = params.get("clientInfo")
    if not isinstance(info, dict) or info.keys() - _CLIENT_INFO_KEYS:
        return None
    name, version, title = info.get("name"), info.get("version"), info.get("title")
    if not (isinstance(name, str) and isinstance(version, str) and (title is None or isinstance(title, str))):
        return None
    if not HEADER_VALUE.match(name):
        return None
    caps = params.get("capabilities")
    if caps is None:
        return Hello(request_id, name, version, False, frozenset())
    if not isinstance(caps, dict) or caps.keys() - _CAPABILITY_KEYS:
        return None
    experimental = caps.get("experimentalApi", False)
    attestation = caps.get("requestAttestation", False)
    opt_out = caps.get("optOutNotificationMethods")
    extensions = caps.get("extensions")
    if not isinstance(experimental, bool) or not isinstance(attestation, bool):
        return None
    if opt_out is not None and not (isinstance(opt_out, list) and all(isinstance(m, str) for m in opt_out)):
        return None
    if extensions is not None and not isinstance(extensions, dict):
        return None
    return Hello(request_id, name, version, experimental, frozenset(opt_out or ()))


def answer_first_frame(
    stdin_fd: int, stdout_fd: int, ready_fd: int, on_wait: Callable[[], None], *, home: Path, version: str
) -> tuple[Prefill, Hello | None]:
    """Read stdin up to its first frame (or until `ready_fd` says the server is up) and answer it
    when it is a plain `initialize`. `on_wait`: called when the first frame is not there yet.

    Returns what was read, for the stdio stream, and the handshake when it was answered; then the
    first frame is consumed and the full server treats the connection as initialized.
    """
    prefill = read_first_frame(stdin_fd, ready_fd, on_wait)
    hello = plain_initialize(prefill.frames[0]) if prefill.frames else None
    if hello is None:
        return prefill, None
    # This is the first client of the process, so it names the originator.
    result = initialize_result(
        originator=hello.client_name,
        client_name=hello.client_name,
        client_version=hello.client_version,
        home=home,
        version=version,
    )
    response = jsonrpc.response(hello.request_id, result)
    frame = json.dumps(response, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    view = memoryview(frame)
    try:
        while view:
            view = view[os.write(stdout_fd, view) :]
    except OSError:  # the client is gone; the server finds out on its own first write
        pass
    hello.answered_ns = time.time_ns()
    del prefill.frames[0]
    return prefill, hello
