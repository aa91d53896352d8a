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
    "pip install '{requirement}' (or reinstall Tether)",
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
    "config.toml has keys Tether does not know (the daemon ignores them with a warning: often a typo)",
    "remove or correct them in {path} (`--strict-config` makes them errors)",
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

_PREAMBLE = """\
# Troubleshooting

<!-- Generated from server/tether_server/doctor/catalog.py by
     `python -m tether_server.doctor.catalog > docs/troubleshooting.md`; a test keeps it current. -->

Start with `tether doctor`: it runs every check below and prints one line per check, with the fix
for anything that is wrong (`tether doctor --json` for scripts; `--probe-model` also sends one small
request to the model). It changes nothing. The exit status is 0 only when every check passes.

```
$ tether doctor
[ok  ] python             Python 3.11.7 (/usr/bin/python3)
[FAIL] home               /home/me/.tether is mode 0777 -- fix: check its contents, then chmod 700 ~/.tether
...
```

Below, each check with the problems it reports and their fixes. In fixes, `{path}`-style
placeholders are filled with your paths and values when doctor prints them.
"""


def render_markdown() -> str:
    """docs/troubleshooting.md: every check, its problems and their fixes."""
    from tether_server.sandbox.messages import KNOWN

    out = [_PREAMBLE]
    for name, what in CHECKS:
        out.append(f"\n## `{name}`\n\n{what}\n")
        problems = [p for p in PROBLEMS if p.check == name]
        if name == "sandbox":
            out.append("\n| problem | fix |\n|---|---|\n")
            out.extend(f"| {_cell(d.reason)} | {_cell(d.fix)} |\n" for d in KNOWN)
            out.append(
                "\nWhen user namespaces are off, doctor also names the kernel setting that turns them off "
                "(`user.max_user_namespaces = 0`, `kernel.unprivileged_userns_clone = 0`, "
                "`kernel.apparmor_restrict_unprivileged_userns = 1`).\n"
            )
            continue
        if not problems:
            out.append("\nNothing to fix here when it fails: it reports what it found.\n")
            continue
        out.append("\n| | problem | fix |\n|---|---|---|\n")
        out.extend(f"| {p.status} | {_cell(p.title)} | {_cell(p.fix)} |\n" for p in problems)
    return "".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


if __name__ == "__main__":
    import sys

    sys.stdout.write(render_markdown())
