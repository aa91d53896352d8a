"""Choosing the credential store for `cli_auth_credentials_store`, and finding a usable keyring."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether_server.auth.storage import (
    AUTH_FILE,
    CredentialStore,
    CredentialStoreError,
    FileStore,
    KeyringStore,
    MemoryStore,
    StoredAuth,
    StoreMode,
)


@dataclass(frozen=True)
class KeyringProbe:
    """The keyring backend the `keyring` library picked, and whether Tether may use it.

    Attributes:
        backend: the backend object, or None when there is none.
        usable: it can store secrets at all (not keyring's "fail" or "null" backend).
        recommended: keyring rates it as a real system keyring (priority >= 1), which `auto`
            requires: a plaintext file keyring is no safer than auth.json.
        reason: why it is not usable or not recommended ("" when it is both).
    """

    backend: Any
    usable: bool
    recommended: bool
    reason: str


def probe_keyring() -> KeyringProbe:
    """Ask the `keyring` library for its backend (honours `PYTHON_KEYRING_BACKEND`)."""
    try:
        import keyring
    except ImportError as exc:
        return KeyringProbe(None, False, False, f"the keyring library is not installed ({exc})")
    try:
        backend = keyring.get_keyring()
        priority = float(backend.priority)
    except Exception as exc:  # noqa: BLE001 - a broken backend plug-in must not stop the caller
        return KeyringProbe(None, False, False, f"the keyring backend failed to load: {exc}")
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if priority <= 0:
        reason = f"no usable system keyring ({name}); is a Secret Service (D-Bus session) running?"
        return KeyringProbe(backend, False, False, reason)
    if priority < 1:
        return KeyringProbe(backend, True, False, f"the keyring backend {name} is not a system keyring")
    return KeyringProbe(backend, True, True, "")


class _Layered:
    """The keyring first, auth.json beside it: `keyring` and `auto` modes.

    Saving to the keyring removes auth.json, so a key never lingers in two places; `auto` falls
    back to the file when the keyring refuses the write. Logging out clears both.
    """

    def __init__(self, keyring: KeyringStore, file: FileStore, *, fallback: bool) -> None:
        self._keyring = keyring
        self._file = file
        self._fallback = fallback

    @property
    def label(self) -> str:
        return self._keyring.label

    def load(self) -> StoredAuth | None:
        found = self._keyring.load()
        if found is None and self._fallback:
            found = self._file.load()
        return found

    def save(self, auth: StoredAuth) -> None:
        try:
            self._keyring.save(auth)
        except CredentialStoreError:
            if not self._fallback:
                raise
            self._file.save(auth)
            return
        self._file.delete()

    def delete(self) -> bool:
        removed = self._keyring.delete()
        return self._file.delete() or removed


def open_store(
    home: Path, mode: StoreMode, probe: Callable[[], KeyringProbe] = probe_keyring
) -> CredentialStore:
    """The store `mode` names for `home`; `probe` finds the keyring (tests pass their own).

    Raises:
        CredentialStoreError: `keyring` mode with no usable keyring.
    """
    file = FileStore(home / AUTH_FILE)
    if mode == "file":
        return file
    if mode == "ephemeral":
        return MemoryStore()
    found = probe()
    if mode == "keyring":
        if not found.usable:
            raise CredentialStoreError(
                f'cli_auth_credentials_store = "keyring" but {found.reason}; '
                'set cli_auth_credentials_store = "file" or "auto"'
            )
        return _Layered(KeyringStore(home, found.backend), file, fallback=False)
    if found.recommended:
        return _Layered(KeyringStore(home, found.backend), file, fallback=True)
    return file
