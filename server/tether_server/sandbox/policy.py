"""The internal sandbox policy and its wire (camelCase) and config (`sandbox_mode`) forms.

Wire shapes (protocol.md §13):
    {"type": "dangerFullAccess"}
    {"type": "readOnly", "networkAccess": false}
    {"type": "workspaceWrite", "writableRoots": [...], "networkAccess": false,
     "excludeTmpdirEnvVar": false, "excludeSlashTmp": false}
    {"type": "externalSandbox", "networkAccess": "restricted" | "enabled"}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tether_server.errors import InvalidParams

SandboxKind = Literal["read-only", "workspace-write", "danger-full-access", "external"]
SANDBOX_MODES: tuple[str, ...] = ("read-only", "workspace-write", "danger-full-access")

_WIRE_TO_KIND: dict[str, SandboxKind] = {
    "readOnly": "read-only",
    "workspaceWrite": "workspace-write",
    "dangerFullAccess": "danger-full-access",
    "externalSandbox": "external",
}
_KIND_TO_WIRE = {kind: wire for wire, kind in _WIRE_TO_KIND.items()}


@dataclass(frozen=True)
class SandboxPolicy:
    """What a spawned command may touch.

    Attributes:
        kind: read-only, workspace-write, danger-full-access, or external (already sandboxed
            by something outside the daemon; commands run unwrapped).
        writable_roots: extra writable roots for workspace-write (cwd is always added).
        network_access: whether the command may use the network.
        exclude_tmpdir_env_var: do not make `$TMPDIR` writable.
        exclude_slash_tmp: do not make `/tmp` writable.
        strict_network_syscalls: with network off, also deny connect/bind/listen/... for every
            socket family (closes host unix sockets; breaks multiprocessing's forkserver).
    """

    kind: SandboxKind
    writable_roots: tuple[Path, ...] = ()
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False
    strict_network_syscalls: bool = True

    @property
    def wraps_commands(self) -> bool:
        """True when commands must run inside the platform sandbox."""
        return self.kind in ("read-only", "workspace-write")

    @classmethod
    def from_mode(
        cls,
        mode: str,
        *,
        writable_roots: Iterable[Path | str] = (),
        network_access: bool = False,
        exclude_tmpdir_env_var: bool = False,
        exclude_slash_tmp: bool = False,
    ) -> SandboxPolicy:
        """Build a policy from config's `sandbox_mode` plus `[sandbox_workspace_write]` values.

        Raises:
            InvalidParams: `mode` is not one of read-only, workspace-write, danger-full-access.
        """
        if mode not in SANDBOX_MODES:
            raise InvalidParams(f"unknown sandbox mode {mode!r}, expected one of {', '.join(SANDBOX_MODES)}")
        if mode == "workspace-write":
            return cls(
                kind="workspace-write",
                writable_roots=_abs_roots(writable_roots),
                network_access=network_access,
                exclude_tmpdir_env_var=exclude_tmpdir_env_var,
                exclude_slash_tmp=exclude_slash_tmp,
            )
        if mode == "read-only":
            return cls(kind="read-only", network_access=network_access)
        return cls(kind="danger-full-access", network_access=True)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SandboxPolicy:
        """Parse a wire `SandboxPolicy` object (all fields but `type` optional).

        Raises:
            InvalidParams: unknown `type` or a field of the wrong type.
        """
        kind = _WIRE_TO_KIND.get(str(data.get("type")))
        if kind is None:
            raise InvalidParams(f"unknown sandboxPolicy type {data.get('type')!r}")
        if kind == "danger-full-access":
            return cls(kind=kind, network_access=True)
        if kind == "external":
            return cls(kind=kind, network_access=_external_network(data.get("networkAccess", "restricted")))
        network = _bool(data, "networkAccess")
        if kind == "read-only":
            return cls(kind=kind, network_access=network)
        roots = data.get("writableRoots", [])
        if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
            raise InvalidParams("sandboxPolicy.writableRoots must be a list of absolute paths")
        return cls(
            kind=kind,
            writable_roots=_abs_roots(roots),
            network_access=network,
            exclude_tmpdir_env_var=_bool(data, "excludeTmpdirEnvVar"),
            exclude_slash_tmp=_bool(data, "excludeSlashTmp"),
        )

    def to_wire(self) -> dict[str, Any]:
        """The camelCase wire object for this policy."""
        wire: dict[str, Any] = {"type": _KIND_TO_WIRE[self.kind]}
        if self.kind == "read-only":
            wire["networkAccess"] = self.network_access
        elif self.kind == "external":
            wire["networkAccess"] = "enabled" if self.network_access else "restricted"
        elif self.kind == "workspace-write":
            wire.update(
                writableRoots=[str(r) for r in self.writable_roots],
                networkAccess=self.network_access,
                excludeTmpdirEnvVar=self.exclude_tmpdir_env_var,
                excludeSlashTmp=self.exclude_slash_tmp,
            )
        return wire

    def effective_writable_roots(self, cwd: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
        """The writable roots as given: cwd, configured roots, `$TMPDIR`, `/tmp` (unless excluded).

        Empty for read-only; not canonicalised and not checked for existence (see `mounts`).
        """
        if self.kind != "workspace-write":
            return ()
        roots = [cwd, *self.writable_roots]
        tmpdir = env.get("TMPDIR")
        if not self.exclude_tmpdir_env_var and tmpdir and Path(tmpdir).is_absolute():
            roots.append(Path(tmpdir))
        if not self.exclude_slash_tmp:
            roots.append(Path("/tmp"))
        return tuple(dict.fromkeys(roots))


def _abs_roots(roots: Iterable[Path | str]) -> tuple[Path, ...]:
    paths = tuple(Path(r) for r in roots)
    for path in paths:
        if not path.is_absolute():
            raise InvalidParams(f"writable root {str(path)!r} is not an absolute path")
    return paths


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise InvalidParams(f"sandboxPolicy.{key} must be a boolean")
    return value


def _external_network(value: object) -> bool:
    if value not in ("restricted", "enabled"):
        raise InvalidParams('sandboxPolicy.networkAccess must be "restricted" or "enabled"')
    return value == "enabled"
