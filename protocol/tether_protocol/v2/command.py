"""The `command/exec` family: standalone processes outside any thread."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from tether_protocol.common import WireModel
from tether_protocol.v2.sandbox import SandboxPolicy

CommandExecOutputStream = Literal["stdout", "stderr"]


class CommandExecTerminalSize(WireModel):
    """PTY size."""

    rows: Annotated[int, Field(ge=0, le=65535)]
    cols: Annotated[int, Field(ge=0, le=65535)]


class CommandExecParams(WireModel):
    """`command/exec` params; `processId` is required for tty, streaming and follow-up calls."""

    command: list[str]
    process_id: str | None = None
    tty: bool = False
    stream_stdin: bool = False
    stream_stdout_stderr: bool = False
    output_bytes_cap: int | None = None
    disable_output_cap: bool = False
    timeout_ms: int | None = None
    disable_timeout: bool = False
    cwd: str | None = None
    env: dict[str, str | None] | None = None
    size: CommandExecTerminalSize | None = None
    sandbox_policy: SandboxPolicy | None = None

    # An OS call cannot carry these; refuse them here rather than fail half-way through a spawn.
    @field_validator("command")
    @classmethod
    def _argv_has_no_nul(cls, argv: list[str]) -> list[str]:
        if any("\0" in arg for arg in argv):
            raise ValueError("command must not contain NUL bytes")
        return argv

    @field_validator("cwd")
    @classmethod
    def _cwd_has_no_nul(cls, cwd: str | None) -> str | None:
        if cwd is not None and "\0" in cwd:
            raise ValueError("cwd must not contain NUL bytes")
        return cwd

    @field_validator("env")
    @classmethod
    def _env_is_representable(cls, env: dict[str, str | None] | None) -> dict[str, str | None] | None:
        for name, value in (env or {}).items():
            if not name or "=" in name or "\0" in name:
                raise ValueError(f"env name {name!r} must be non-empty without '=' or NUL")
            if value is not None and "\0" in value:
                raise ValueError(f"env value of {name} must not contain NUL bytes")
        return env


class CommandExecResponse(WireModel):
    """`command/exec` result, sent after the process exits (streamed output is not repeated)."""

    exit_code: int
    stdout: str
    stderr: str


class CommandExecWriteParams(WireModel):
    """`command/exec/write` params."""

    process_id: str
    delta_base64: str | None = None
    close_stdin: bool = False


class CommandExecWriteResponse(WireModel):
    """`command/exec/write` result (`{}`)."""


class CommandExecResizeParams(WireModel):
    """`command/exec/resize` params."""

    process_id: str
    size: CommandExecTerminalSize


class CommandExecResizeResponse(WireModel):
    """`command/exec/resize` result (`{}`)."""


class CommandExecTerminateParams(WireModel):
    """`command/exec/terminate` params."""

    process_id: str


class CommandExecTerminateResponse(WireModel):
    """`command/exec/terminate` result (`{}`)."""


class CommandExecOutputDeltaNotification(WireModel):
    """`command/exec/outputDelta`: a base64 chunk of a streamed process's output."""

    process_id: str
    stream: CommandExecOutputStream
    delta_base64: str
    cap_reached: bool = False
