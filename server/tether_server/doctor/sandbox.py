"""The sandbox check: the daemon's own bubblewrap + seccomp probe, and the kernel settings behind it."""

from __future__ import annotations

from pathlib import Path

from tether_server.doctor import catalog
from tether_server.doctor.report import Check, ok
from tether_server.sandbox.probe import probe_sandbox

# Kernel switches that turn unprivileged user namespaces off, and the value that does it.
USERNS_SWITCHES = (
    ("/proc/sys/user/max_user_namespaces", "user.max_user_namespaces", "0"),
    ("/proc/sys/kernel/unprivileged_userns_clone", "kernel.unprivileged_userns_clone", "0"),
    (
        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
        "kernel.apparmor_restrict_unprivileged_userns",
        "1",
    ),
)


def userns_blockers(root: Path = Path("/")) -> list[str]:
    """The kernel settings that forbid unprivileged user namespaces here, as `name = value`."""
    found = []
    for path, name, blocking in USERNS_SWITCHES:
        try:
            value = (root / path.lstrip("/")).read_text().strip()
        except OSError:
            continue
        if value == blocking:
            found.append(f"{name} = {value}")
    return found


async def check_sandbox() -> Check:
    capability = await probe_sandbox()
    if capability.available:
        return ok(
            "sandbox", f"bubblewrap {capability.bwrap_path} confines commands (seccomp, no capabilities)"
        )
    blockers = userns_blockers()
    reason = capability.reason + (f" ({'; '.join(blockers)})" if blockers else "")
    details = {"reason": capability.reason, "bwrap": capability.bwrap_path, "userns_settings": blockers}
    return catalog.SANDBOX_UNAVAILABLE.found(reason, details, fix=capability.fix)
