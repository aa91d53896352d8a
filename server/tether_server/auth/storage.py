"""Where a stored API key lives: `$TETHER_HOME/auth.json` (0600), the system keyring, or memory.

`cli_auth_credentials_store` picks the place, with Codex's values: `file` (the default), `keyring`
(fail when no keyring is usable), `auto` (the keyring when a recommended one exists, else the file)
and `ephemeral` (this process only). auth.json keeps Codex's shape, so the key sits under
`OPENAI_API_KEY` and a ChatGPT sign-in's tokens under `tokens`; the keyring entry holds the same
JSON document.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tether_server import private_file
from tether_server.config.model import CredentialsStore

StoreMode = CredentialsStore

AUTH_FILE = "auth.json"
FILE_MODE = 0o600
KEYRING_SERVICE = "Tether Auth"
_API_KEY_FIELD = "OPENAI_API_KEY"
_RELOGIN = "run `tether logout`, then `tether login --with-api-key` again"


class CredentialStoreError(Exception):
    """A credential store cannot be read or written; the message says why and what to do."""


@dataclass(frozen=True)
class StoredAuth:
    """What a sign-in stored: an API key, or the tokens of a ChatGPT browser sign-in.

    `tokens` holds Codex's keys: `id_token`, `access_token`, `refresh_token`, `account_id`.
    """

    api_key: str | None
    tokens: dict[str, str] | None = None
    last_refresh: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The auth.json document (Codex's field names)."""
        mode = "apikey" if self.tokens is None else "chatgpt"
        return {
            "auth_mode": mode,
            _API_KEY_FIELD: self.api_key,
            "tokens": self.tokens,
            "last_refresh": self.last_refresh,
        }

    @classmethod
    def from_json(cls, text: str, where: str) -> StoredAuth | None:
        """Parse an auth.json document; None when it holds no API key (e.g. ChatGPT tokens only).

        Raises:
            CredentialStoreError: the text is not a JSON object.
        """
        try:
            data = json.loads(text)
        except ValueError:
            raise CredentialStoreError(f"{where} is not valid JSON; {_RELOGIN}") from None
        if not isinstance(data, dict):
            raise CredentialStoreError(
                f"{where} is not a JSON object; run `tether logout`, then log in again"
            )
        key = data.get(_API_KEY_FIELD)
        key = key if isinstance(key, str) and key.strip() else None
        tokens = data.get("tokens")
        if isinstance(tokens, dict) and isinstance(tokens.get("id_token"), str):
            kept = {k: v for k, v in tokens.items() if isinstance(v, str)}
            refreshed = data.get("last_refresh")
            return cls(key, kept, refreshed if isinstance(refreshed, str) else None)
        return cls(key) if key else None


class CredentialStore(Protocol):
    """One place credentials are kept. Every method may block (file or D-Bus I/O)."""

    @property
    def label(self) -> str:
        """Where the credentials are, for messages ("file /home/u/.tether/auth.json")."""
        ...

    def load(self) -> StoredAuth | None:
        """The stored credentials, or None.

        Raises:
            CredentialStoreError: the store exists but cannot be read or parsed.
        """
        ...

    def save(self, auth: StoredAuth) -> None:
        """Replace the stored credentials.

        Raises:
            CredentialStoreError: the store cannot be written.
        """
        ...

    def delete(self) -> bool:
        """Remove the stored credentials; False when there were none.

        Raises:
            CredentialStoreError: they exist but cannot be removed.
        """
        ...


class FileStore:
    """`auth.json` in the home: written whole to a 0600 temporary file, then renamed over."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # A killed writer's copy holds a key or tokens.
        private_file.remove_orphans(path)

    @property
    def label(self) -> str:
        return f"file {self.path}"

    def load(self) -> StoredAuth | None:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CredentialStoreError(f"cannot read {self.path}: {exc.strerror}") from None
        with os.fdopen(fd, encoding="utf-8") as handle:
            try:
                text = handle.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise CredentialStoreError(f"cannot read {self.path}: {exc}") from None
        return StoredAuth.from_json(text, str(self.path))

    def save(self, auth: StoredAuth) -> None:
        data = json.dumps(auth.to_json(), indent=2) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            private_file.write_atomic(self.path, data, FILE_MODE)
        except OSError as exc:
            raise CredentialStoreError(f"cannot write {self.path}: {exc.strerror}") from None

    def delete(self) -> bool:
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise CredentialStoreError(f"cannot remove {self.path}: {exc.strerror}") from None
        return True

    def mode(self) -> int | None:
        """The file's permission bits, or None when it does not exist."""
        try:
            return stat.S_IMODE(os.lstat(self.path).st_mode)
        except FileNotFoundError:
            return None


class KeyringStore:
    """One entry in the system keyring, named after the home so two homes never share a key."""

    def __init__(self, home: Path, backend: Any) -> None:
        self._backend = backend
        digest = hashlib.sha256(str(home.resolve()).encode()).hexdigest()[:16]
        self.username = f"cli|{digest}"

    @property
    def label(self) -> str:
        return f"keyring {type(self._backend).__module__}.{type(self._backend).__name__}"

    def load(self) -> StoredAuth | None:
        text = self._call("read", self._backend.get_password, KEYRING_SERVICE, self.username)
        return None if text is None else StoredAuth.from_json(str(text), self.label)

    def save(self, auth: StoredAuth) -> None:
        self._call(
            "write", self._backend.set_password, KEYRING_SERVICE, self.username, json.dumps(auth.to_json())
        )

    def delete(self) -> bool:
        from keyring.errors import PasswordDeleteError

        try:
            self._backend.delete_password(KEYRING_SERVICE, self.username)
        except PasswordDeleteError:
            return False
        except Exception as exc:  # noqa: BLE001 - keyring backends raise anything (D-Bus, OS errors)
            raise CredentialStoreError(f"cannot remove the key from the {self.label}: {exc}") from None
        return True

    def _call(self, what: str, method: Any, *args: str) -> Any:
        try:
            return method(*args)
        except Exception as exc:  # noqa: BLE001 - keyring backends raise anything (D-Bus, OS errors)
            raise CredentialStoreError(f"cannot {what} the {self.label}: {exc}") from None


class MemoryStore:
    """`ephemeral`: credentials live as long as this process."""

    def __init__(self) -> None:
        self._auth: StoredAuth | None = None

    @property
    def label(self) -> str:
        return "memory (ephemeral)"

    def load(self) -> StoredAuth | None:
        return self._auth

    def save(self, auth: StoredAuth) -> None:
        self._auth = auth

    def delete(self) -> bool:
        had, self._auth = self._auth is not None, None
        return had
