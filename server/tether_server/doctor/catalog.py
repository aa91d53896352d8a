"""Every check `tether doctor` runs and every problem it can report, with its fix.

docs/troubleshooting.md is generated from this list (`python -m tether_server.doctor.catalog`),
and a test keeps the two equal.
"""

from __future__ import annotations

from tether_server.doctor.report import Problem

CHECKS: list[tuple[str, str]] = [
    ("python", "The Python running Tether is 3.11 or newer."),
    ("dependencies", "Every library Tether needs is installed at a version it accepts."),
    ("config", "`$TETHER_HOME/config.toml` parses, every value is valid, and no key is unknown."),
    ("home", "`$TETHER_HOME` is a directory owned by you that nobody else can write into or read."),
    ("database", "`tether.sqlite` passes SQLite's integrity check and has a schema this Tether knows."),
    ("sandbox", "bubblewrap is installed and the seccomp probe confines a command."),
    ("provider-key", "The selected model provider has an API key (environment, config or `tether login`)."),
    ("provider-endpoint", "The provider's base URL answers HTTP."),
    ("provider-model", "With `--probe-model`: a minimal request to the model succeeds."),
    ("listeners", "The control socket and the background daemon are in a consistent state."),
    ("auth-files", "Credential files in the home are private and readable; the keyring works if chosen."),
]

PYTHON_OLD = Problem(
    "python", "fail", "Python is older than 3.11", "install Python 3.11 or newer and reinstall Tether"
)
DEPENDENCY_MISSING = Problem(
    "dependencies",
    "fail",
    "a required library is missing",
    "reinstall Tether: pip install --force-reinstall tether",
)
DEPENDENCY_VERSION = Problem(
    "dependencies",
    "fail",
    "a library is installed at a version Tether does not accept",
    "pip install '{requirement}'",
)
CONFIG_INVALID = Problem(
    "config", "fail", "config.toml cannot be read, or a value is wrong", "edit {path}: {message}"
)
CONFIG_UNKNOWN = Problem(
    "config",
    "warn",
    "config.toml has keys Tether does not know (typos are ignored silently by the daemon)",
    "remove or correct them in {path} (`--strict-config` makes them errors)",
)
HOME_MISSING = Problem(
    "home",
    "warn",
    "the home does not exist yet",
    "nothing to do: the first `tether app-server` creates it (0700)",
)
HOME_NOT_DIR = Problem("home", "fail", "the home is not a directory", "move {home} aside or set TETHER_HOME")
HOME_NOT_OWNED = Problem(
    "home",
    "fail",
    "the home belongs to another user",
    "use your own TETHER_HOME, or chown {home} to yourself",
)
HOME_WRITABLE = Problem(
    "home",
    "fail",
    "the home is group- or world-writable: anyone could plant files in it",
    "check its contents, then chmod 700 {home}",
)
HOME_READABLE = Problem(
    "home", "warn", "the home is readable by other users (conversations, credentials)", "chmod 700 {home}"
)
FILE_EXPOSED = Problem(
    "home", "warn", "a file in the home is readable or writable by other users", "chmod 600 {paths}"
)
DB_CORRUPT = Problem(
    "database",
    "fail",
    "the database is corrupt or not a SQLite database",
    "stop the daemon, move {path} aside (it keeps your threads for recovery) and restore a backup",
)
DB_NEWER = Problem(
    "database",
    "fail",
    "the database was written by a newer Tether",
    "upgrade Tether, or point TETHER_HOME at another home",
)
DB_UNREADABLE = Problem(
    "database", "fail", "the database cannot be opened", "check the file's owner and permissions: {path}"
)
SANDBOX_UNAVAILABLE = Problem(
    "sandbox",
    "fail",
    "sandboxed commands cannot run (bubblewrap missing, user namespaces off, seccomp missing, …)",
    "{fix}",
)
KEY_MISSING = Problem(
    "provider-key",
    "fail",
    "the selected provider has no API key",
    "set {var} in the daemon's environment, or (OpenAI-authenticated providers) store a key: "
    "printenv OPENAI_API_KEY | tether login --with-api-key",
)
ENDPOINT_UNREACHABLE = Problem(
    "provider-endpoint",
    "fail",
    "the provider's base URL does not answer",
    "check base_url ({url}), the network and any proxy; for a local server, start it",
)
MODEL_KEY_REFUSED = Problem(
    "provider-model",
    "fail",
    "the provider refused the API key",
    "check the key; store a new one with `tether login --with-api-key` or fix {var}",
)
MODEL_UNKNOWN = Problem(
    "provider-model",
    "fail",
    "the provider does not know the model",
    "set `model` in config.toml (or the name given to --probe-model) to a model the provider serves",
)
MODEL_FAILED = Problem(
    "provider-model",
    "fail",
    "the test request to the model failed for another reason (quota, outage, network)",
    "read the provider's message above; check quota and the provider's status page, then retry",
)
SOCKET_STALE = Problem(
    "listeners",
    "warn",
    "a control socket file is left over from a daemon that is gone",
    "remove {path}, or run `tether app-server daemon start`",
)
SOCKET_EXPOSED = Problem(
    "listeners",
    "fail",
    "the control socket is reachable by other users",
    "chmod 600 {path} and restart the daemon",
)
AUTH_UNREADABLE = Problem(
    "auth-files",
    "fail",
    "stored credentials cannot be read",
    "run `tether logout`, then `printenv OPENAI_API_KEY | tether login --with-api-key`",
)
AUTH_EXPOSED = Problem(
    "auth-files", "fail", "a credential file is readable by other users", "chmod 600 {paths}"
)
KEYRING_UNAVAILABLE = Problem(
    "auth-files",
    "fail",
    'cli_auth_credentials_store = "keyring" but no system keyring is usable',
    'start a Secret Service (e.g. gnome-keyring) or set cli_auth_credentials_store = "file"',
)

PROBLEMS: list[Problem] = [
    PYTHON_OLD,
    DEPENDENCY_MISSING,
    DEPENDENCY_VERSION,
    CONFIG_INVALID,
    CONFIG_UNKNOWN,
    HOME_NOT_DIR,
    HOME_NOT_OWNED,
    HOME_WRITABLE,
    HOME_READABLE,
    FILE_EXPOSED,
    DB_CORRUPT,
    DB_NEWER,
    DB_UNREADABLE,
    SANDBOX_UNAVAILABLE,
    KEY_MISSING,
    ENDPOINT_UNREACHABLE,
    MODEL_KEY_REFUSED,
    MODEL_UNKNOWN,
    MODEL_FAILED,
    SOCKET_STALE,
    SOCKET_EXPOSED,
    AUTH_UNREADABLE,
    AUTH_EXPOSED,
    KEYRING_UNAVAILABLE,
]
