"""`tether exec`: run one turn without a UI, for scripts and CI.

It spawns `tether app-server` as a child over stdio, starts a thread (approval policy `never`:
nobody is there to answer), runs one turn, reports progress on stderr (or every event as JSONL
on stdout with `--json`) and prints the final agent message on stdout. Exit status: 0 when the
turn completed, 1 when it failed or was interrupted, 2 on usage errors, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tether_client.client import Client
from tether_client.errors import TetherClientError
from tether_client.exec_report import Reporter, note
from tether_client.transport import StdioTransport
from tether_client.turns import TurnStream

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
_INTERRUPT_GRACE_S = 15.0


class UsageError(Exception):
    """Bad arguments or unreadable input files."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tether exec", description="Run one agent turn non-interactively.")
    add = parser.add_argument
    add("prompt", nargs="?", default=None, help="the task; `-` (or nothing, with stdin piped) reads stdin")
    add("--json", action="store_true", help="print every event as JSONL on stdout")
    add("--output-schema", type=Path, metavar="FILE", help="JSON Schema the final answer must follow")
    add("-o", "--output-last-message", type=Path, metavar="FILE", help="also write the final message here")
    add("-C", "--cd", type=Path, metavar="DIR", help="working directory of the agent")
    add("-c", "--config", dest="overrides", action="append", default=[], metavar="key=value")
    add("-p", "--profile", default=None, help="config profile to apply")
    add("-m", "--model", default=None)
    add("-s", "--sandbox", choices=["read-only", "workspace-write", "danger-full-access"], default=None)
    add("--full-auto", action="store_true", help="sandbox workspace-write (approvals stay `never`)")
    add("--ephemeral", action="store_true", help="do not keep the thread")
    add("--skip-git-repo-check", action="store_true", help="accepted for Codex compatibility")
    return parser


def read_prompt(prompt: str | None) -> str:
    """The prompt argument, or stdin when it is `-` or absent and stdin is not a terminal."""
    if prompt is not None and prompt != "-":
        return prompt
    if prompt is None and sys.stdin.isatty():
        raise UsageError("no prompt given (pass it as an argument, or `-` to read stdin)")
    text = sys.stdin.read()
    if not text.strip():
        raise UsageError("the prompt read from stdin is empty")
    return text


def _load_schema(path: Path | None) -> Any:
    if path is None:
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read output schema {path}: {exc}") from exc


def _app_server_command(args: argparse.Namespace) -> list[str]:
    command = [sys.executable, "-m", "tether_server", "app-server"]
    for override in args.overrides:
        command += ["-c", override]
    if args.profile:
        command += ["--profile", args.profile]
    return command


def _thread_fields(args: argparse.Namespace, cwd: Path) -> dict[str, Any]:
    fields: dict[str, Any] = {"cwd": str(cwd), "approval_policy": "never"}
    sandbox = args.sandbox or ("workspace-write" if args.full_auto else None)
    if sandbox:
        fields["sandbox"] = sandbox
    if args.model:
        fields["model"] = args.model
    if args.ephemeral:
        fields["ephemeral"] = True
    return fields


async def _drive(stream: TurnStream) -> int:
    """Run the turn; on SIGINT interrupt it, wait for its end, and report 130."""
    interrupted = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, interrupted.set)
    try:
        await stream.start()
        waiter = asyncio.create_task(stream.wait())
        signalled = asyncio.create_task(interrupted.wait())
        await asyncio.wait({waiter, signalled}, return_when=asyncio.FIRST_COMPLETED)
        signalled.cancel()
        if interrupted.is_set() and not waiter.done():
            note("interrupting the turn…")
            await stream.interrupt()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_INTERRUPT_GRACE_S):
                    await asyncio.shield(waiter)
            waiter.cancel()
            return EXIT_INTERRUPTED
        await waiter
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return EXIT_OK if stream.status == "completed" else EXIT_FAILED


def _finish(stream: TurnStream, args: argparse.Namespace) -> None:
    message = stream.final_message
    if stream.turn is not None and stream.turn.error is not None:
        note(f"turn {stream.status}: {stream.turn.error.message}")
    elif stream.status != "completed":
        note(f"turn {stream.status}")
    if message is None:
        return
    if args.output_last_message is not None:
        args.output_last_message.write_text(message)
    if not args.json and stream.status == "completed":
        sys.stdout.write(message if message.endswith("\n") else message + "\n")
        sys.stdout.flush()


async def run(args: argparse.Namespace, prompt: str, schema: Any) -> int:
    """Spawn the server, run the turn, report; returns the exit status."""
    cwd = (args.cd or Path.cwd()).resolve()
    transport = await StdioTransport.spawn(_app_server_command(args), cwd=cwd)
    client = Client(transport)
    try:
        await client.initialize(name="tether_exec")
        return await _run_turn(client, args, prompt, schema, cwd)
    except TetherClientError as exc:
        note(f"tether exec: {exc}")
        for line in list(transport.stderr_tail)[-20:]:
            note(f"  app-server: {line}")
        return EXIT_FAILED
    finally:
        await client.close()


async def _run_turn(client: Client, args: argparse.Namespace, prompt: str, schema: Any, cwd: Path) -> int:
    reporter = Reporter(client.notifications(), json_mode=args.json)
    started = await client.start_thread(**_thread_fields(args, cwd))
    thread_id = started.thread.id
    note(f"tether exec: thread {thread_id} (model {started.model}, cwd {started.cwd})")
    turn_fields = {"output_schema": schema} if schema is not None else {}
    stream = client.run_turn(thread_id, prompt, **turn_fields)
    status = await _drive(stream)
    await reporter.finish()
    _finish(stream, args)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `tether exec` (dispatched from `tether`'s CLI)."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        prompt = read_prompt(args.prompt)
        schema = _load_schema(args.output_schema)
        if args.cd is not None and not args.cd.is_dir():
            raise UsageError(f"--cd {args.cd}: not a directory")
    except UsageError as exc:
        note(f"tether exec: {exc}")
        return EXIT_USAGE
    try:
        return asyncio.run(run(args, prompt, schema))
    except KeyboardInterrupt:  # Ctrl-C before the turn started: nothing to interrupt
        return EXIT_INTERRUPTED
    except (TetherClientError, OSError) as exc:
        note(f"tether exec: {exc}")
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
