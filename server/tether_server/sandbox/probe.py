"""Can this machine run the sandbox? Probed once at daemon start with the real argv shape."""

from __future__ import annotations

import asyncio
import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tether_server import log
from tether_server.errors import SandboxError
from tether_server.sandbox import messages, seccomp
from tether_server.sandbox.bwrap import build_bwrap_argv
from tether_server.sandbox.messages import Diagnosis
from tether_server.sandbox.mounts import MountPlan
from tether_server.sandbox.policy import SandboxPolicy

_log = log.get("tether.sandbox")
PROBE_TIMEOUT_S = 5.0
_NO_DISABLE_USERNS = "Unknown option --disable-userns"


@dataclass(frozen=True)
class SandboxCapability:
    """The probe result.

    Attributes:
        available: read-only and workspace-write commands can run sandboxed.
        reason: why not (empty when available).
        fix: how the user can fix it (empty when available).
        bwrap_path: the bwrap binary that passed the probe.
        disable_userns: bwrap takes `--disable-userns` (0.8+); older ones run without it.
    """

    available: bool
    reason: str = ""
    fix: str = ""
    bwrap_path: str = ""
    disable_userns: bool = True

    @classmethod
    def unavailable(cls, diagnosis: Diagnosis, bwrap_path: str = "") -> SandboxCapability:
        """A failed probe result."""
        return cls(available=False, reason=diagnosis.reason, fix=diagnosis.fix, bwrap_path=bwrap_path)


async def probe_sandbox(
    *, bwrap_path: str | None = None, time_limit: float = PROBE_TIMEOUT_S
) -> SandboxCapability:
    """Run `cat /proc/self/status` under a read-only, network-off sandbox with seccomp.

    It passes when the command exits 0 with no capabilities, no_new_privs and a seccomp filter.

    Args:
        bwrap_path: the bwrap binary; `bwrap` on PATH by default.
        time_limit: seconds before the probe counts as failed.
    """
    result = await _probe(bwrap_path, time_limit)
    _log.info("sandbox probe", available=result.available, reason=result.reason, bwrap=result.bwrap_path)
    return result


async def _probe(bwrap_path: str | None, time_limit: float) -> SandboxCapability:
    static = _static_diagnosis()
    if static is not None:
        return SandboxCapability.unavailable(static)
    path = bwrap_path or shutil.which("bwrap")
    if not path or not os.access(path, os.X_OK):
        return SandboxCapability.unavailable(messages.BWRAP_MISSING, path or "")
    program = seccomp.build_program(network_access=False)
    fd = seccomp.write_memfd(program)
    try:
        disable_userns = True
        diagnosis, stderr = await _attempt(path, fd, time_limit, disable_userns=True)
        if diagnosis is not None and _NO_DISABLE_USERNS in stderr:
            # Blocking nested user namespaces is hardening on top of the locked mounts, so a bwrap
            # older than 0.8 still sandboxes, without it.
            disable_userns = False
            diagnosis, _ = await _attempt(path, fd, time_limit, disable_userns=False)
    finally:
        os.close(fd)
    if diagnosis is not None:
        return SandboxCapability.unavailable(diagnosis, path)
    if not disable_userns:
        _log.warning("sandbox.nested_userns_allowed", bwrap=path, reason="bwrap has no --disable-userns")
    return SandboxCapability(available=True, bwrap_path=path, disable_userns=disable_userns)


async def _attempt(
    path: str, fd: int, time_limit: float, *, disable_userns: bool
) -> tuple[Diagnosis | None, str]:
    os.lseek(fd, 0, os.SEEK_SET)
    argv = build_bwrap_argv(
        SandboxPolicy(kind="read-only"),
        Path("/"),
        ["cat", "/proc/self/status"],
        mounts=MountPlan(),
        seccomp_fd=fd,
        bwrap=path,
        disable_userns=disable_userns,
    )
    return await _run(argv, fd, time_limit)


def _static_diagnosis() -> Diagnosis | None:
    if platform.system() != "Linux":
        return messages.NOT_LINUX
    try:
        osrelease = Path("/proc/sys/kernel/osrelease").read_text()
    except OSError:
        osrelease = ""
    if "Microsoft" in osrelease and "microsoft-standard" not in osrelease:
        return messages.WSL1
    try:
        seccomp.host_arch()
    except SandboxError as exc:
        return Diagnosis(exc.message, "run the daemon on x86_64 or aarch64, or use danger-full-access")
    return None


async def _run(argv: list[str], fd: int, time_limit: float) -> tuple[Diagnosis | None, str]:
    # subprocess in a thread rather than the event loop's own subprocess support: under uvloop
    # that forks the whole daemon (20-30 ms on a busy machine, on the way to the first request),
    # where subprocess vforks.
    try:
        done = await asyncio.to_thread(
            subprocess.run,
            argv,
            pass_fds=(fd,),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=time_limit,
        )
    except subprocess.TimeoutExpired:  # run() has killed and reaped it
        return messages.PROBE_TIMEOUT, ""
    except OSError:
        return messages.BWRAP_MISSING, ""
    stderr = done.stderr.decode(errors="replace")
    if done.returncode != 0:
        return messages.classify_bwrap_failure(stderr, done.returncode), stderr
    return (None if is_confined(done.stdout.decode(errors="replace")) else messages.PROBE_UNCONFINED), stderr


def is_confined(status: str) -> bool:
    """True when a `/proc/self/status` text shows no capabilities, no_new_privs and seccomp filtering."""
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    values = {key: value.strip() for key, value in fields.items()}
    return (
        values.get("NoNewPrivs") == "1"
        and values.get("Seccomp") == "2"
        and values.get("CapEff", "x").strip("0") == ""
    )
