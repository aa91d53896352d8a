"""`tether login --with-api-key`, `tether login status`, `tether logout`.

Messages go to stderr, as Codex's do; the exit status carries the answer (`login status`: 0 when
a key is stored, 1 when not).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from tether_server.commands.flags import add_config_overrides
from tether_server.home_path import tether_home

if TYPE_CHECKING:
    from tether_server.auth import CredentialStore

NO_TTY = (
    "--with-api-key expects the API key on stdin. Try piping it, e.g. "
    "`printenv OPENAI_API_KEY | tether login --with-api-key`."
)
EPHEMERAL = (
    'cli_auth_credentials_store = "ephemeral" keeps a key in the daemon\'s memory only, so this '
    "command cannot store one: send account/login/start to the daemon, or choose file, keyring or auto"
)
NO_CHATGPT = (
    "Tether signs in with an API key only (ChatGPT sign-in is not supported). "
    "Pipe one in: `printenv OPENAI_API_KEY | tether login --with-api-key`."
)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `login` and `logout` on the top-level parser."""
    login = sub.add_parser("login", help="store an API key (read from stdin) for the model provider")
    login.add_argument("action", nargs="?", choices=["status"], help="`status`: say whether a key is stored")
    login.add_argument("--with-api-key", action="store_true", help="read the API key from stdin")
    add_config_overrides(login)
    logout = sub.add_parser("logout", help="remove the stored API key")
    add_config_overrides(logout)


def run(args: argparse.Namespace) -> int:
    """Run `login` or `logout` as parsed; returns the exit status."""
    # Imported here: registering the parsers must not load the config models (`app-server` parses too).
    from tether_server.auth import CredentialStoreError
    from tether_server.errors import ConfigError

    try:
        store = _store(args.overrides)
    except (ConfigError, CredentialStoreError) as exc:
        return _fail(str(exc.message if isinstance(exc, ConfigError) else exc), 2)
    try:
        if args.command == "logout":
            return _logout(store)
        if args.action == "status":
            return _status(store)
        if not args.with_api_key:
            return _fail(NO_CHATGPT, 2)
        return _login(store)
    except CredentialStoreError as exc:
        return _fail(str(exc), 1)


def _store(overrides: list[str]) -> CredentialStore:
    from tether_server.auth import CredentialStoreError, open_store
    from tether_server.config import load_config

    home = tether_home()
    mode = load_config(home, overrides).config.cli_auth_credentials_store or "file"
    if mode == "ephemeral":
        raise CredentialStoreError(EPHEMERAL)
    return open_store(home, mode)


def _login(store: CredentialStore) -> int:
    from tether_server.auth import StoredAuth

    if sys.stdin.isatty():
        return _fail(NO_TTY, 2)
    key = sys.stdin.read().strip()
    if not key:
        return _fail("No API key provided via stdin.", 2)
    store.save(StoredAuth(key))
    _say(f"Successfully logged in ({store.label})")
    return 0


def _logout(store: CredentialStore) -> int:
    _say("Successfully logged out" if store.delete() else "Not logged in")
    return 0


def _status(store: CredentialStore) -> int:
    from tether_server.config.provider import OPENAI_KEY_VAR

    auth = store.load()
    if auth is None:
        _say("Not logged in")
        return 1
    if auth.api_key is None:
        _say(f"Logged in using ChatGPT ({store.label})")
        return 0
    _say(f"Logged in using an API key - {mask(auth.api_key)} ({store.label})")
    if os.environ.get(OPENAI_KEY_VAR, "").strip():
        _say(f"note: {OPENAI_KEY_VAR} is set in this environment and takes precedence over the stored key")
    return 0


def mask(key: str) -> str:
    """A key shortened for display: its first 8 and last 5 characters."""
    return f"{key[:8]}***{key[-5:]}" if len(key) > 13 else "***"


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")


def _fail(text: str, status: int) -> int:
    sys.stderr.write(f"tether: {text}\n")
    return status
