"""Host paths no sandboxed command may see, whatever its network setting.

With network on, seccomp lets every socket family through, so a pathname unix socket is reachable
if its file is visible: the daemon's own sockets, the D-Bus bus, docker.sock, the ssh agent. And
credentials in the daemon user's home are readable through the read-only root. So the sandbox
covers the runtime directories (`/run`, `/var/run`, `$XDG_RUNTIME_DIR`, `/tmp/.X11-unix`), the
directory of each socket named by the environment, and the usual credential stores of `$HOME`
(and Codex's `$CODEX_HOME/auth.json`) with an empty mount.
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

# The X11 socket dir holds pathname sockets too (a display is keyboard and screen access).
RUNTIME_DIRS: tuple[str, ...] = ("/run", "/var/run", "/tmp/.X11-unix")
# Credential stores relative to a home: keys, tokens and passwords of the usual tools (cloud
# CLIs, git hosts, package registries, cluster configs, Codex's own login).
CREDENTIAL_NAMES: tuple[str, ...] = (
    ".aws",
    ".ssh",
    ".gnupg",
    ".netrc",
    ".docker",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".kube",
    ".azure",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".codex/auth.json",
)
# Variables naming a unix socket, with the prefix that marks a socket path in their value.
_SOCKET_VARS: tuple[tuple[str, str], ...] = (
    ("SSH_AUTH_SOCK", ""),
    ("DBUS_SESSION_BUS_ADDRESS", "unix:path="),
    ("DOCKER_HOST", "unix://"),
)
# Directories shared with everything else: hiding one of them would hide the workspace, so only
# the socket file itself is covered when it sits directly in one of them.
_SHARED_DIRS: tuple[str, ...] = ("/", "/tmp", "/var/tmp", "/dev/shm")


def host_hidden_paths(environ: Mapping[str, str], *, readable_credentials: Iterable[str] = ()) -> list[Path]:
    """The daemon host's runtime dirs, socket dirs and home credential stores, for `hidden_paths`.

    Args:
        environ: the daemon's environment (`HOME`, `XDG_RUNTIME_DIR`, `SSH_AUTH_SOCK`, ...).
        readable_credentials: names from `CREDENTIAL_NAMES` the user chose to leave readable
            (config `tether.sandbox_readable_credentials`).
    """
    paths = [Path(p) for p in RUNTIME_DIRS]
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        paths.append(Path(runtime))
    homes = home_dirs(environ)
    for name, prefix in _SOCKET_VARS:
        socket = _socket_path(environ.get(name, ""), prefix)
        if socket is not None:
            paths.append(_socket_cover(socket, homes))
    allowed = set(readable_credentials)
    paths += [home / name for home in homes for name in CREDENTIAL_NAMES if name not in allowed]
    codex_home = environ.get("CODEX_HOME", "")
    if codex_home.startswith("/") and ".codex/auth.json" not in allowed:
        paths.append(Path(codex_home) / "auth.json")
    return paths


def outermost(paths: Iterable[Path]) -> list[Path]:
    """Canonical paths with those inside another one dropped: hiding the parent hides them, and
    bwrap cannot mount into a directory it has already replaced."""
    resolved = sorted({Path(os.path.realpath(p)) for p in paths}, key=lambda p: (len(p.parts), p))
    kept: list[Path] = []
    for path in resolved:
        if not any(path.is_relative_to(parent) for parent in kept):
            kept.append(path)
    return kept


def home_dirs(environ: Mapping[str, str]) -> list[Path]:
    """`$HOME` and the account's home in the password database, when they are real directories' paths."""
    homes: list[Path] = []
    home = environ.get("HOME", "")
    if home.startswith("/") and home != "/":
        homes.append(Path(home))
    try:
        account = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        account = ""
    if account.startswith("/") and account != "/" and Path(account) not in homes:
        homes.append(Path(account))
    return homes


def _socket_path(value: str, prefix: str) -> Path | None:
    if not value.startswith(prefix):
        return None
    path = value[len(prefix) :].split(",", 1)[0]
    return Path(path) if path.startswith("/") else None


def _socket_cover(socket: Path, homes: Sequence[Path]) -> Path:
    """The socket's directory, unless that directory is shared (then the socket file alone)."""
    parent = socket.parent
    shared = {Path(d) for d in _SHARED_DIRS} | set(homes)
    return socket if parent in shared else parent
