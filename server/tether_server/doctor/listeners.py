"""Checks of what a running daemon leaves in the home: the control socket, the pid file, credentials."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tether_server.auth import AUTH_FILE, CredentialStoreError, FileStore, probe_keyring
from tether_server.config import Config
from tether_server.daemon import pid_file, running_pid
from tether_server.doctor import catalog
from tether_server.doctor.files import exposed
from tether_server.doctor.report import Check, ok
from tether_server.transports import unix

# Files beside auth.json that hold secrets (the WebSocket token and JWT secret a daemon may write).
SECRET_FILES = (AUTH_FILE, "ws-token", "ws-shared-secret")


def check_listeners(home: Path) -> Check:
    path = unix.default_socket_path(home)
    pid = running_pid(pid_file(home))
    details: dict[str, object] = {"control_socket": str(path), "daemon_pid": pid}
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        running = f"; background daemon pid {pid}" if pid else ""
        return ok("listeners", f"no control socket (no daemon listening on unix://){running}", details)
    mode = stat.S_IMODE(info.st_mode)
    details["mode"] = f"{mode:04o}"
    if not unix.is_live(path):
        return catalog.SOCKET_STALE.found(f"{path} exists but nothing listens on it", details, path=path)
    if mode & 0o077 and _dir_open(path.parent):
        return catalog.SOCKET_EXPOSED.found(f"{path} is mode {mode:04o}", details, path=path)
    who = f"the background daemon (pid {pid})" if pid else "a daemon"
    return ok("listeners", f"{who} listens on unix://{path}", details)


def _dir_open(directory: Path) -> bool:
    # A socket is reachable only through its directory: a 0700 directory keeps others out.
    try:
        return bool(stat.S_IMODE(os.stat(directory).st_mode) & 0o011)
    except OSError:
        return True


def check_auth_files(home: Path, config: Config) -> Check:
    mode = config.cli_auth_credentials_store or "file"
    loose = exposed([home / name for name in SECRET_FILES])
    if loose:
        names = " ".join(str(path) for path in loose)
        return catalog.AUTH_EXPOSED.found(f"{names} can be read by other users", paths=names)
    if mode == "keyring":
        probe = probe_keyring()
        if not probe.usable:
            return catalog.KEYRING_UNAVAILABLE.found(probe.reason, {"store": mode})
    store = FileStore(home / AUTH_FILE)
    try:
        stored = store.load()
    except CredentialStoreError as exc:
        return catalog.AUTH_UNREADABLE.found(str(exc), {"store": mode})
    present = [name for name in SECRET_FILES if (home / name).exists()]
    what = f"{', '.join(present)} private (0600)" if present else "no credential files in the home"
    key = "; auth.json holds an API key" if stored else ""
    return ok("auth-files", f"store {mode}: {what}{key}", {"store": mode, "files": present})
