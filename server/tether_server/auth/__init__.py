"""Stored credentials: `tether login`'s API key in auth.json, the system keyring, or memory."""

from tether_server.auth.credentials import Credentials
from tether_server.auth.select import KeyringProbe, open_store, probe_keyring
from tether_server.auth.storage import (
    AUTH_FILE,
    CredentialStore,
    CredentialStoreError,
    FileStore,
    StoredAuth,
    StoreMode,
)

__all__ = [
    "AUTH_FILE",
    "CredentialStore",
    "CredentialStoreError",
    "Credentials",
    "FileStore",
    "KeyringProbe",
    "StoreMode",
    "StoredAuth",
    "open_store",
    "probe_keyring",
]
