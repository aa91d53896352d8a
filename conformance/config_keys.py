"""Every config.toml key the real Codex binary knows, found by asking the binary itself.

Codex 0.169.0 prints no config schema (and its start-up warning about unrecognized settings lists
only the first three), so the keys are found by observation:

1. Candidate names are read from the binary: the strings its `.data.rel.ro` section points at as
   (pointer, length) pairs that look like identifiers (serde keeps each struct's field names there,
   as `&[&str]` arrays): about twelve thousand words.
2. All candidates are written into a scratch `CODEX_HOME/config.toml` with a TOML datetime as value,
   a type no Codex key takes. `codex features list` (which loads the config and starts nothing)
   then fails on the first key Codex knows, naming it (or its line; when it names neither, the
   candidates are halved until one fails alone). That key is noted and removed, and so on until
   the file loads: what is left is unknown to Codex.
3. The same is done inside each table of `NESTED` (the tables Tether reads key by key; an entry
   of a map is probed as `<id>`); Tether keeps every other Codex table whole, so their inner keys
   are not needed. Feature flag names come from `codex features list`.

A key noted `refused` is one Codex rejects whatever its value ("no longer supported"); `table` one
that wants a table. `python -m conformance.config_keys` rewrites
server/tether_server/config/codex_keys.json (`--check` compares and writes nothing). Limit: a key
whose Codex type takes any TOML value loads with the datetime and is missed; the three such
top-level keys found (see `ANY_VALUE`) are added by hand.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from conformance.recorder.codex import DEFAULT_PREFIX, VERSION, find_codex
from tether_server.config.overrides import set_dotted

OUT = Path(__file__).resolve().parent.parent / "server" / "tether_server" / "config" / "codex_keys.json"
# Top-level keys Codex reads whatever their value, so the datetime does not find them. Observed: a
# config.toml with these three set to a datetime and one made-up key starts `codex app-server` with
# "Codex is ignoring 1 unrecognized configuration setting" (the made-up one).
ANY_VALUE = ("review_model", "service_tier", "sqlite_home")
PROBE_VALUE = _dt.datetime(1979, 5, 27, 7, 32, tzinfo=_dt.UTC)
MAP_PROBE = "zz_tether_probe_entry"
# Tables whose keys Tether checks one by one; `<id>` is any name.
NESTED = ("sandbox_workspace_write", "shell_environment_policy", "otel", "tools", "model_providers.<id>")
_IDENT = re.compile(rb"[a-z_][a-z0-9_]*")
_WHERE = re.compile(r"\n\s*in `([^`]*)`")

Table = dict[str, Any]


def candidates(codex: Path) -> list[str]:
    """Identifier-like strings that `.data.rel.ro` points at as (pointer, length) pairs."""
    data = codex.read_bytes()
    sections = _sections(data)
    ro_addr, ro_off, ro_size = sections[".rodata"]
    _, rel_off, rel_size = sections[".data.rel.ro"]
    found: set[str] = set()
    for at in range(rel_off, rel_off + rel_size - 16, 8):
        ptr, length = struct.unpack_from("<QQ", data, at)
        if ro_addr <= ptr < ro_addr + ro_size and 1 <= length <= 64:
            text = data[ptr - ro_addr + ro_off : ptr - ro_addr + ro_off + length]
            if _IDENT.fullmatch(text):
                found.add(text.decode())
    return sorted(found)


def _sections(data: bytes) -> dict[str, tuple[int, int, int]]:
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_off = headers[shstrndx][4]
    out = {}
    for name_at, _, _, addr, offset, size in headers:
        end = data.index(b"\0", names_off + name_at)
        out[data[names_off + name_at : end].decode()] = (addr, offset, size)
    return out


def features(codex: Path, home: Path) -> list[str]:
    """The feature names `codex features list` prints."""
    done = _run(codex, home, ["features", "list"])
    return sorted(line.split()[0] for line in done.stdout.splitlines() if line.strip())


def _run(codex: Path, home: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CODEX_HOME": str(home)}
    return subprocess.run(
        [str(codex), *args], env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


def toml(table: Table) -> tuple[str, list[list[str]]]:
    """The table as one dotted `key = value` line per leaf, and each line's key path."""
    lines: list[str] = []
    paths: list[list[str]] = []
    for path, value in _leaves(table, []):
        lines.append(".".join(json.dumps(p) for p in path) + f" = {_value(value)}\n")
        paths.append(path)
    return "".join(lines), paths


def _leaves(table: Table, prefix: list[str]) -> list[tuple[list[str], Any]]:
    out: list[tuple[list[str], Any]] = []
    for key, value in table.items():
        if isinstance(value, dict) and value:
            out += _leaves(value, [*prefix, key])
        else:
            out.append(([*prefix, key], value))
    return out


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, _dt.datetime):
        return value.isoformat()
    return json.dumps(value)


def probe(codex: Path, scratch: Path, names: list[str]) -> dict[str, str]:
    """Dotted key → "table" | "value" | "refused" for each key Codex knows.

    Every candidate gets a TOML datetime, a type no Codex key takes: each known one then stops
    the load (one at a time, the error naming it), unknown ones are skipped silently.
    """
    known: dict[str, str] = dict.fromkeys(ANY_VALUE, "value")
    for table in ("", *NESTED):
        path = [MAP_PROBE if part == "<id>" else part for part in table.split(".") if part]
        rest = list(names)
        while (error := _load_error(codex, scratch, path, rest)) is not None:
            name = _culprit_name(error, path, rest)
            if name is None and "missing field" in error:
                break  # every field left is unknown; the entry just lacks its required ones
            name = name or _bisect(codex, scratch, path, rest)
            rest.remove(name)
            kind = "table" if re.search(r"expected (struct|a map|a table)", error) else "value"
            if "no longer supported" in error:
                kind = "refused"
            known[".".join([table, name]) if table else name] = kind
    return known


def _load_error(codex: Path, home: Path, path: list[str], names: list[str]) -> str | None:
    config: Table = {}
    entries = dict.fromkeys(names, PROBE_VALUE)
    if path:
        set_dotted(config, path, entries)
    else:
        config = entries
    (home / "config.toml").write_text(toml(config)[0])
    done = _run(codex, home, ["features", "list"])
    return None if done.returncode == 0 else done.stderr.split("Stack backtrace:")[0]


def _culprit_name(error: str, path: list[str], names: list[str]) -> str | None:
    where = _WHERE.search(error)
    if where is not None:
        parts = where.group(1).split(".")
        if parts[: len(path)] == path and len(parts) > len(path) and parts[len(path)] in names:
            return parts[len(path)]
    line = re.search(r"config\.toml:(\d+):\d+: ", error)
    if line is not None and not path:
        return names[int(line.group(1)) - 1]
    quoted = [q.split(" ")[0] for q in re.findall(r"`([^`]+)`", error)]
    return next((q for q in quoted if q in names), None)


def _bisect(codex: Path, home: Path, path: list[str], names: list[str]) -> str:
    while len(names) > 1:
        half = names[: len(names) // 2]
        names = half if _load_error(codex, home, path, half) is not None else names[len(names) // 2 :]
    return names[0]


def generate(codex: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=Path.home() / ".cache") as tmp:
        scratch = Path(tmp)
        names = candidates(codex)
        keys = probe(codex, scratch, names)
        (scratch / "config.toml").unlink(missing_ok=True)
        flags = features(codex, scratch)
    return {
        "codex_version": VERSION,
        "generated_by": "python -m conformance.config_keys",
        "keys": dict(sorted(keys.items())),
        "features": flags,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codex", type=Path, help="the codex binary (default: installed under ~/.cache)")
    parser.add_argument("--check", action="store_true", help="compare with the committed list")
    args = parser.parse_args(argv)
    codex = find_codex(DEFAULT_PREFIX, args.codex)
    text = json.dumps(generate(codex), indent=1) + "\n"
    if args.check:
        same = OUT.read_text() == text
        print("codex_keys.json is current" if same else "codex_keys.json differs from the binary")
        return 0 if same else 1
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
