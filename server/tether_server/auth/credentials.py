"""The daemon's view of the stored credentials (an API key or ChatGPT tokens), changed by login and logout."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from tether_server import log
from tether_server.auth.select import open_store
from tether_server.auth.storage import (
    CredentialStore,
    CredentialStoreError,
    FileStore,
    StoredAuth,
    StoreMode,
)

_log = log.get(__name__)


class UnavailableStore:
    """The configured store cannot be used: nothing is stored, and a login says why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    @property
    def label(self) -> str:
        return "unavailable store"

    def load(self) -> StoredAuth | None:
        return None

    def save(self, auth: StoredAuth) -> None:
        raise CredentialStoreError(self.reason)

    def delete(self) -> bool:
        return False


class Credentials:
    """The stored key, kept in memory so model requests never wait on a keyring.

    With the file store, a `tether login` or `tether logout` run while the daemon is up is
    noticed on the next model request (one `stat` per lookup); keyring changes made outside
    the daemon are seen at its next start.
    """

    def __init__(self, store: CredentialStore) -> None:
        self.store = store
        # `chatgptAuthTokens`: tokens an app supplies; never written anywhere (Codex keeps them
        # in memory too) and gone at the next login, logout or restart.
        self.external: dict[str, str] | None = None
        self._auth: StoredAuth | None = None
        self._seen: tuple[int, int, int] | None = None

    @classmethod
    async def open(cls, home: Path, mode: StoreMode) -> Credentials:
        """Open the configured store and read it; an unreadable store is logged and treated as empty."""
        try:
            store: CredentialStore = await asyncio.to_thread(open_store, home, mode)
        except CredentialStoreError as exc:
            _log.warning("auth.store_unavailable", reason=str(exc))
            store = UnavailableStore(str(exc))
        credentials = cls(store)
        await asyncio.to_thread(credentials.reload)
        return credentials

    def reload(self) -> None:
        """Read the store again (blocking)."""
        self._seen = self._signature()
        try:
            self._auth = self.store.load()
        except CredentialStoreError as exc:
            _log.warning("auth.unreadable", reason=str(exc))
            self._auth = None

    def api_key(self) -> str | None:
        """The stored API key, or None."""
        if isinstance(self.store, FileStore) and self._signature() != self._seen:
            self.reload()
        return self._auth.api_key if self._auth else None

    def chatgpt_tokens(self) -> dict[str, str] | None:
        """The tokens of the current ChatGPT sign-in (the app's, else the stored ones), or None."""
        if self.external is not None:
            return self.external
        if isinstance(self.store, FileStore) and self._signature() != self._seen:
            self.reload()
        return self._auth.tokens if self._auth else None

    async def login_chatgpt(self, tokens: dict[str, str], refreshed_at: str) -> None:
        """Store a browser sign-in's tokens, replacing any stored key or tokens.

        Raises:
            CredentialStoreError: the store refused the write.
        """
        auth = StoredAuth(None, dict(tokens), refreshed_at)
        await asyncio.to_thread(self.store.save, auth)
        self._auth, self._seen, self.external = auth, self._signature(), None
        _log.info("auth.login_chatgpt", store=self.store.label)

    async def login(self, api_key: str) -> None:
        """Store `api_key`, replacing any stored one.

        Raises:
            CredentialStoreError: the store refused the write.
        """
        auth = StoredAuth(api_key)
        await asyncio.to_thread(self.store.save, auth)
        self._auth, self._seen, self.external = auth, self._signature(), None
        _log.info("auth.login", store=self.store.label)

    async def logout(self) -> bool:
        """Forget the stored key; False when none was stored.

        Raises:
            CredentialStoreError: the store refused the removal.
        """
        removed = await asyncio.to_thread(self.store.delete)
        removed = removed or self.external is not None
        self._auth, self._seen, self.external = None, self._signature(), None
        _log.info("auth.logout", store=self.store.label, removed=removed)
        return removed

    def _signature(self) -> tuple[int, int, int] | None:
        if not isinstance(self.store, FileStore):
            return None
        try:
            info = os.stat(self.store.path)
        except OSError:
            return None
        return (info.st_ino, info.st_mtime_ns, info.st_size)
