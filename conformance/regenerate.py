"""`python -m conformance.regenerate [--schema-only | --transcripts-only] [--check]`.

Rebuilds the Codex 0.169.0 reference data from the real binary: the stable and experimental JSON
Schema folders (`conformance/reference`, `conformance/reference-experimental`) and the transcripts
(`conformance/reference/transcripts`). `--check` records everything afresh in the scratch folder and
compares it with what is committed — the schema byte for byte, the transcripts by their skeletons —
without writing into the repository; it exits 1 when something differs. Run by hand, never in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from conformance.recorder.codex import (
    DEFAULT_PREFIX,
    EXPERIMENTAL_FILES,
    STABLE_FILES,
    CodexError,
    SchemaSet,
    compare_schema,
    find_codex,
    generate_schema,
    version,
    write_schema,
)
from conformance.recorder.record import Recording, record
from conformance.recorder.scenarios import SCENARIOS, Scenario
from conformance.recorder.skeleton import compare

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "conformance" / "reference"
TRANSCRIPTS = REFERENCE / "transcripts"
SCHEMAS = {
    "stable": SchemaSet(REFERENCE, STABLE_FILES, experimental=False),
    "experimental": SchemaSet(REPO / "conformance" / "reference-experimental", EXPERIMENTAL_FILES, True),
}
DEFAULT_SCRATCH = Path.home() / ".cache" / "tether-regenerate"


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="python -m conformance.regenerate", description=__doc__)
    half = p.add_mutually_exclusive_group()
    half.add_argument("--schema-only", action="store_true", help="only the two schema folders")
    half.add_argument("--transcripts-only", action="store_true", help="only the transcripts")
    p.add_argument("--check", action="store_true", help="compare with what is committed, write nothing")
    p.add_argument("--only", action="append", default=[], metavar="SCENARIO", help="these scenarios only")
    p.add_argument("--codex", type=Path, help="a codex 0.169.0 binary to use instead of the installed one")
    p.add_argument("--prefix", type=Path, default=DEFAULT_PREFIX, help="npm prefix to install codex into")
    p.add_argument(
        "--scratch", type=Path, default=DEFAULT_SCRATCH, help="homes, projects and fresh output (not /tmp)"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Regenerate or check; 1 when a check finds a difference or a scenario fails."""
    args = parser().parse_args(argv)
    scratch = args.scratch.expanduser().resolve()
    if scratch == Path("/tmp") or Path("/tmp") in scratch.parents:
        # Codex treats /tmp as a writable root of its own sandbox: a home or project there would make
        # the recorded permissions differ from a real user's.
        parser().error("--scratch must not be under /tmp")
    scenarios = _selected(args.only)
    try:
        codex = find_codex(args.prefix.expanduser(), args.codex)
    except CodexError as exc:
        print(f"regenerate: {exc}", file=sys.stderr)
        return 1
    print(f"codex: {codex} ({version(codex)})")
    ok = True
    if not args.transcripts_only:
        ok &= _schemas(codex, scratch, args.check)
    if not args.schema_only:
        ok &= asyncio.run(_transcripts(codex, scratch, scenarios, args.check))
    return 0 if ok else 1


def _selected(only: list[str]) -> list[Scenario]:
    names = {name for item in only for name in item.split(",") if name}
    unknown = names - {s.name for s in SCENARIOS}
    if unknown:
        parser().error(f"unknown scenarios: {', '.join(sorted(unknown))}")
    return [s for s in SCENARIOS if not names or s.name in names]


def _schemas(codex: Path, scratch: Path, check: bool) -> bool:
    ok = True
    for label, schemas in SCHEMAS.items():
        out = scratch / "schema" / label
        generate_schema(codex, schemas.experimental, out, scratch / "schema" / "home")
        if check:
            problems = compare_schema(out, schemas)
            ok &= not problems
            verdict = f"identical ({len(schemas.files)} files)" if not problems else "DIFFERENT"
            print(f"schema {label}: {verdict}")
            for problem in problems:
                print(f"  {problem}")
        else:
            write_schema(out, schemas)
            print(f"schema {label}: wrote {len(schemas.files)} files into {schemas.folder.relative_to(REPO)}")
    return ok


async def _transcripts(codex: Path, scratch: Path, scenarios: list[Scenario], check: bool) -> bool:
    printed = version(codex)
    ok = True
    for scenario in scenarios:
        recording = await record(scenario, codex, printed, scratch / "scenarios")
        _keep(recording, scratch / "transcripts")
        if recording.failures:
            ok = False
            print(f"transcript {scenario.name}: FAILED {recording.failures} (see {scratch / 'scenarios'})")
            continue
        if check:
            ok &= _check(recording)
        else:
            _write(recording, TRANSCRIPTS)
            print(f"transcript {scenario.name}: written")
    return ok


def _check(recording: Recording) -> bool:
    committed = TRANSCRIPTS / f"{recording.name}.skeleton.txt"
    if not committed.is_file():
        print(f"transcript {recording.name}: DIFFERENT (nothing committed)")
        return False
    result = compare(committed.read_text().splitlines(), recording.skeleton.splitlines())
    if result.differences:
        print(f"transcript {recording.name}: DIFFERENT")
        for line in result.differences:
            print(f"  {line}")
        return False
    notes = []
    if result.reordered:
        notes.append("some steps log the same messages in another order")
    notes += [f"moved across a step line: {move}" for move in result.moved]
    print(f"transcript {recording.name}: matches" + ("" if notes else " (identical)"))
    for note in notes:
        print(f"  {note}")
    return True


def _keep(recording: Recording, folder: Path) -> None:
    # The fresh files stay in the scratch folder, to diff by hand with what is committed.
    folder.mkdir(parents=True, exist_ok=True)
    _write(recording, folder)


def _write(recording: Recording, folder: Path) -> None:
    (folder / f"{recording.name}.jsonl").write_text(recording.transcript)
    (folder / f"{recording.name}.skeleton.txt").write_text(recording.skeleton)
    if recording.requests is not None:
        (folder / f"{recording.name}.upstream-requests.jsonl").write_text(recording.requests)


if __name__ == "__main__":
    sys.exit(main())
