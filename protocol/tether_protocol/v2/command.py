"""The `command/exec` family: standalone processes outside any thread."""

from __future__ import annotations

from typing import Literal

from tether_protocol.common import WireModel
from tether_protocol.v2.sandbox import SandboxPolicy

CommandExecOutputStream = Literal["stdout", "stderr"]


class CommandExecTerminalSize(WireModel):
    """PTY size."""

    rows: int
    cols: int


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
