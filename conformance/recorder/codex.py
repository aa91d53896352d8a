"""The pinned Codex binary (installed outside the repository when missing) and its JSON Schema."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

VERSION = "0.169.0"
PACKAGE = f"@openai/codex@{VERSION}"
DEFAULT_PREFIX = Path.home() / ".cache" / "tether-ci" / "codex"
"""Where `scripts/install-prereqs` and the e2e tests keep it too."""

# The files the tests and the conformance suite read: the method unions, the JSON-RPC envelope, the
# bundle of every v2 type, and (stable only) the v1 initialize types. The rest of the generated
# bundle (per-method files, `v2/`, the v1+v2 bundle) repeats these definitions.
_COMMON = (
    "ClientNotification.json",
    "ClientRequest.json",
    "JSONRPCError.json",
    "JSONRPCErrorError.json",
    "JSONRPCMessage.json",
    "JSONRPCNotification.json",
    "JSONRPCRequest.json",
    "JSONRPCResponse.json",
    "RequestId.json",
    "ServerNotification.json",
    "ServerRequest.json",
    "codex_app_server_protocol.v2.schemas.json",
)
STABLE_FILES = (*_COMMON, "v1/InitializeParams.json", "v1/InitializeResponse.json")
EXPERIMENTAL_FILES = _COMMON


class CodexError(Exception):
    """The binary is missing, the wrong version, or failed."""


def find_codex(prefix: Path, explicit: Path | None) -> Path:
    """The Codex binary: `explicit`, or the one under `prefix`, installed there first when missing.

    The native binary is preferred to npm's node launcher: it is the process that then reads stdin,
    so closing stdin and waiting for the exit reach the server itself.

    Raises:
        CodexError: no binary of the pinned version could be found or installed.
    """
    if explicit is not None:
        return _checked(explicit)
    found = _installed(prefix)
    if found is None or version(found) != f"codex-cli {VERSION}":
        _install(prefix)
        found = _installed(prefix)
    if found is None:
        raise CodexError(f"npm installed {PACKAGE} under {prefix}, but no codex binary is there")
    return _checked(found)


def version(codex: Path) -> str:
    """What `codex --version` prints, e.g. ``codex-cli 0.169.0`` ("" when it does not run)."""
    try:
        done = subprocess.run([str(codex), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip()


def _checked(codex: Path) -> Path:
    printed = version(codex)
    if printed != f"codex-cli {VERSION}":
        raise CodexError(f"{codex} reports {printed or 'nothing'!r}, not codex-cli {VERSION}")
    return codex


def _installed(prefix: Path) -> Path | None:
    native = sorted((prefix / "node_modules" / "@openai").glob("codex-*/vendor/*/bin/codex"))
    if native:
        return native[0]
    launcher = prefix / "node_modules" / ".bin" / "codex"
    return launcher if launcher.is_file() else None


def _install(prefix: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise CodexError(f"{PACKAGE} is not installed under {prefix} and npm is not available")
    prefix.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix), PACKAGE]
    if subprocess.run(command, check=False).returncode != 0:
        raise CodexError(f"`{' '.join(command)}` failed")


@dataclass(frozen=True)
class SchemaSet:
    """One reference folder and the generated files it keeps."""

    folder: Path
    files: tuple[str, ...]
    experimental: bool


def generate_schema(codex: Path, experimental: bool, out: Path, home: Path) -> None:
    """Run `codex app-server generate-json-schema [--experimental] --out OUT` into a fresh `out`, with
    `home` as a scratch CODEX_HOME (the user's own stays untouched)."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    home.mkdir(parents=True, exist_ok=True)
    argv = [str(codex), "app-server", "generate-json-schema", "--out", str(out)]
    if experimental:
        argv.insert(3, "--experimental")
    done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "CODEX_HOME": str(home)})
    if done.returncode != 0:
        raise CodexError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")


def compare_schema(generated: Path, schemas: SchemaSet) -> list[str]:
    """Byte-for-byte differences between the kept generated files and the committed ones."""
    problems = []
    for name in schemas.files:
        fresh, committed = generated / name, schemas.folder / name
        if not fresh.is_file():
            problems.append(f"{name}: not generated")
        elif not committed.is_file():
            problems.append(f"{name}: not committed")
        elif fresh.read_bytes() != committed.read_bytes():
            problems.append(f"{name}: differs")
    stray = sorted(
        str(p.relative_to(schemas.folder))
        for p in schemas.folder.rglob("*.json")
        if "transcripts" not in p.relative_to(schemas.folder).parts
        and str(p.relative_to(schemas.folder)) not in schemas.files
    )
    problems += [f"{name}: committed, but not a generated file kept here" for name in stray]
    return problems


def write_schema(generated: Path, schemas: SchemaSet) -> None:
    """Replace the committed schema files with the generated ones; NOTICE, README and the
    transcripts stay."""
    for old in schemas.folder.rglob("*.json"):
        if "transcripts" not in old.relative_to(schemas.folder).parts:
            old.unlink()
    for name in schemas.files:
        target = schemas.folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(generated / name, target)
