"""Background terminals of a thread (`thread/backgroundTerminals/terminate|clean`) and client-driven
processes (`process/spawn|writeStdin|kill|resizePty` and their notifications); experimental."""

from __future__ import annotations

from typing import Literal

from tether_protocol.common import WireModel


class ThreadBackgroundTerminalsTerminateParams(WireModel):
    """`thread/backgroundTerminals/terminate` params: the `processId` the list showed."""

    thread_id: str
    process_id: str


class ThreadBackgroundTerminalsTerminateResponse(WireModel):
    """Whether a running terminal of that id was ended (false: none was running)."""

    terminated: bool


class ThreadBackgroundTerminalsCleanParams(WireModel):
    """`thread/backgroundTerminals/clean` params."""

    thread_id: str


class ThreadBackgroundTerminalsCleanResponse(WireModel):
    """`thread/backgroundTerminals/clean` result (empty)."""


class ProcessTerminalSize(WireModel):
    """A PTY size in character cells."""

    rows: int
    cols: int


class ProcessSpawnParams(WireModel):
    """`process/spawn` params: an argv run under the connection's `processHandle`."""

    command: list[str]
    cwd: str
    process_handle: str
    env: dict[str, str | None] | None = None
    output_bytes_cap: int | None = None
    size: ProcessTerminalSize | None = None
    stream_stdin: bool = False
    stream_stdout_stderr: bool = False
    timeout_ms: int | None = None
    tty: bool = False


class ProcessSpawnResponse(WireModel):
    """`process/spawn` result (empty): output and exit follow as notifications."""


class ProcessWriteStdinParams(WireModel):
    """`process/writeStdin` params: bytes to write, stdin to close, or both."""

    process_handle: str
    delta_base64: str | None = None
    close_stdin: bool = False


class ProcessWriteStdinResponse(WireModel):
    """`process/writeStdin` result (empty)."""


class ProcessKillParams(WireModel):
    """`process/kill` params."""

    process_handle: str


class ProcessKillResponse(WireModel):
    """`process/kill` result (empty)."""


class ProcessResizePtyParams(WireModel):
    """`process/resizePty` params."""

    process_handle: str
    size: ProcessTerminalSize


class ProcessResizePtyResponse(WireModel):
    """`process/resizePty` result (empty)."""


class ProcessOutputDeltaNotification(WireModel):
    """`process/outputDelta`: a base64 chunk of a streamed stream."""

    process_handle: str
    stream: Literal["stdout", "stderr"]
    delta_base64: str
    cap_reached: bool


class ProcessExitedNotification(WireModel):
    """`process/exited`: the process ended; what was not streamed is here."""

    process_handle: str
    exit_code: int
    stdout: str
    stdout_cap_reached: bool
    stderr: str
    stderr_cap_reached: bool
    output_drain_timed_out: bool | None = None
