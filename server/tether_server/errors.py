"""The one exception tree of the daemon.

    TetherError                     carries an ErrorCode; becomes a JSON-RPC error at rpc.dispatcher
    ├── InvalidRequest              -32600, Codex's code for application errors
    │   ├── NotFound                thread/turn/process lookups that fail
    │   └── Conflict                state does not allow it (no active turn, archived, draining …)
    ├── InvalidParams               -32602
    ├── MethodNotFound              -32601
    ├── Overloaded                  -32001
    ├── InternalError               -32603, an I/O failure worth telling the client about
    │   └── StoreError              (store.base) the database cannot be used: full, read-only …
    ├── ConfigError                 a bad configuration (startup error naming the key)
    ├── ProviderError               the model provider failed (carries codexErrorInfo)
    └── SandboxError                the sandbox cannot run a command (fail closed)

Only `rpc/dispatcher.py` turns exceptions into wire errors.
"""

from __future__ import annotations

from typing import Any

from tether_protocol.errors import ErrorCode


class TetherError(Exception):
    code: ErrorCode = ErrorCode.INVALID_REQUEST

    def __init__(self, message: str, *, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


class InvalidRequest(TetherError):
    code = ErrorCode.INVALID_REQUEST


class NotFound(InvalidRequest):
    pass


class Conflict(InvalidRequest):
    pass


class InvalidParams(TetherError):
    code = ErrorCode.INVALID_PARAMS


class MethodNotFound(TetherError):
    code = ErrorCode.METHOD_NOT_FOUND


class Overloaded(TetherError):
    code = ErrorCode.SERVER_OVERLOADED


class InternalError(TetherError):
    code = ErrorCode.INTERNAL_ERROR


def archived_message(thread_id: str) -> str:
    return f"session {thread_id} is archived. Run `tether unarchive {thread_id}` to unarchive it first."


class ConfigError(TetherError):
    """A configuration value is wrong. `key` is the dotted config key at fault, if any."""

    code = ErrorCode.INVALID_REQUEST

    def __init__(self, message: str, *, key: str | None = None) -> None:
        super().__init__(message, data={"key": key} if key else None)
        self.key = key


class ProviderError(TetherError):
    """The model provider failed. `codex_error_info` is the wire `CodexErrorInfo` value."""

    code = ErrorCode.INTERNAL_ERROR

    def __init__(
        self,
        message: str,
        *,
        codex_error_info: Any = "other",
        retryable: bool = False,
        http_status: int | None = None,
        additional_details: str | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.codex_error_info = codex_error_info
        self.retryable = retryable
        self.http_status = http_status
        self.additional_details = additional_details
        self.retry_after_s = retry_after_s  # a delay the server asked for before the next attempt


class SandboxError(TetherError):
    """The sandbox cannot run this command; it is refused, never run bare."""

    code = ErrorCode.INVALID_REQUEST
