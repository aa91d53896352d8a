"""`tether exec`: run one turn without a UI, for scripts, CI and `codex exec` consumers.

It speaks `codex exec` 0.169.0: the same flags (exec_args), the same JSONL events with `--json`
(exec_events), so the official TypeScript SDK runs on Tether through `codexPathOverride`. The
turn runs on a child `tether app-server` over stdio, or on a daemon with `--remote`. Without
`--json`, progress goes to stderr and the final agent message alone to stdout.

Exit status: 0 when the turn completed, 1 when it failed (or exec could not start it), 2 on usage
errors, 130 after Ctrl-C and 143 after SIGTERM (the turn is interrupted first).
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
from tether_client.errors import TetherClientError, TransportClosed
from tether_client.exec_args import UsageError, parse
from tether_client.exec_events import ExecEvents
from tether_client.exec_input import InputError, image_inputs, resolve_prompt
from tether_client.exec_report import Reporter, note
from tether_client.exec_session import SessionError, check_git, connect, open_thread
from tether_client.subscription import Subscription

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
_INTERRUPT_GRACE_S = 15.0
_STOP_SIGNALS = {signal.SIGINT: EXIT_INTERRUPTED, signal.SIGTERM: EXIT_TERMINATED}


def _load_schema(path: Path | None) -> Any:
    if path is None:
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read output schema {path}: {exc}") from exc


class _Run:
    """One exec run: its connection, thread, turn, and how it reports them."""

    def __init__(self, args: argparse.Namespace, cwd: Path, turn_input: list[dict[str, Any]], schema: Any):
        self.args = args
        self.cwd = cwd
        self.turn_input = turn_input
        self.schema = schema
        self.events = ExecEvents()
        self.reporter = Reporter(json_mode=args.json)
        self.stop_status: int | None = None
        self.stopped = asyncio.Event()
        self.final_message: str | None = None
        self.turn_status: str | None = None

    async def main(self) -> int:
        # Signals are caught from the start: one while the thread is being set up stops exec
        # before a turn starts, instead of killing it between turn/start and its answer.
        loop = asyncio.get_running_loop()
        for sig, status in _STOP_SIGNALS.items():
            loop.add_signal_handler(sig, self._stop, status)
        try:
            return await self._connected()
        finally:
            for sig in _STOP_SIGNALS:
                loop.remove_signal_handler(sig)

    async def _connected(self) -> int:
        client, child, notes = await connect(self.args, self.cwd)
        try:
            return await self._run(client, notes)
        except TetherClientError as exc:
            note(f"tether exec: {exc}")
            if child is not None:
                for line in list(child.stderr_tail)[-20:]:
                    note(f"  app-server: {line}")
            return EXIT_FAILED
        finally:
            notes.close()
            await client.close()

    async def _run(self, client: Client, notes: Subscription) -> int:
        started = await open_thread(client, self.args, self.cwd)
        thread_id = started.thread.id
        note(
            f"tether exec: thread {thread_id} (model {started.model}, cwd {started.cwd}, "
            f"sandbox {_sandbox_name(started.sandbox)}, approval {_approval_name(started.approval_policy)})"
        )
        self.reporter.report(self.events.thread_started(thread_id))
        fields = {"output_schema": self.schema} if self.schema is not None else {}
        if self.stop_status is not None:
            return self.stop_status
        turn = await client.start_turn(thread_id, self.turn_input, **fields)
        status = await self._drive(client, notes, thread_id, turn.turn.id)
        self._finish()
        return status

    async def _follow(self, notes: Subscription, thread_id: str, turn_id: str) -> None:
        """Report the connection's notifications, in order, until the turn's `turn/completed`."""
        async for notification in notes:
            if notification.thread_id not in (None, thread_id) or notification.turn_id not in (None, turn_id):
                continue
            params = notification.params
            self.reporter.report(self.events.translate(notification.method, params))
            item = params.get("item") or {}
            if notification.method == "item/completed" and item.get("type") == "agentMessage":
                self.final_message = item.get("text")
            if notification.method == "turn/completed":
                self.turn_status = (params.get("turn") or {}).get("status")
                return
        raise TransportClosed("connection closed before the turn completed")

    async def _drive(self, client: Client, notes: Subscription, thread_id: str, turn_id: str) -> int:
        """Follow the turn; on SIGINT/SIGTERM interrupt it, wait for its end, and report 130/143."""
        follower = asyncio.create_task(self._follow(notes, thread_id, turn_id))
        signalled = asyncio.create_task(self.stopped.wait())
        await asyncio.wait({follower, signalled}, return_when=asyncio.FIRST_COMPLETED)
        signalled.cancel()
        if self.stopped.is_set() and not follower.done():
            note("interrupting the turn…")
            with contextlib.suppress(TetherClientError):
                await client.interrupt_turn(thread_id, turn_id)
            with contextlib.suppress(TimeoutError, TetherClientError):
                async with asyncio.timeout(_INTERRUPT_GRACE_S):
                    await asyncio.shield(follower)
            follower.cancel()
        else:
            await follower
        if self.stop_status is not None:
            return self.stop_status
        return EXIT_OK if self.turn_status == "completed" else EXIT_FAILED

    def _stop(self, status: int) -> None:
        if self.stop_status is None:
            self.stop_status = status
        self.stopped.set()

    def _finish(self) -> None:
        message = self.final_message
        if self.turn_status not in ("completed", "failed"):
            note(f"turn {self.turn_status or 'not finished'}")
        if message is None:
            return
        if self.args.output_last_message is not None:
            self.args.output_last_message.write_text(message)
        if not self.args.json and self.turn_status == "completed":
            sys.stdout.write(message if message.endswith("\n") else message + "\n")
            sys.stdout.flush()


def _sandbox_name(policy: Any) -> str:
    wire = policy.wire() if hasattr(policy, "wire") else policy
    kind = wire.get("type") if isinstance(wire, dict) else wire
    return {
        "readOnly": "read-only",
        "workspaceWrite": "workspace-write",
        "dangerFullAccess": "danger-full-access",
    }.get(str(kind), str(kind))


def _approval_name(policy: Any) -> str:
    wire = policy.wire() if hasattr(policy, "wire") else getattr(policy, "root", policy)
    return wire if isinstance(wire, str) else json.dumps(wire)


def _prepare(args: argparse.Namespace) -> tuple[Path, list[dict[str, Any]], Any]:
    """Everything checked before connecting: directory, git guard, prompt, images, schema."""
    cwd = (args.cd or Path.cwd()).expanduser().resolve()
    if not cwd.is_dir():
        raise InputError(f"--cd {args.cd}: not a directory")
    check_git(args, cwd)
    images = image_inputs(args.images)
    schema = _load_schema(args.output_schema)
    prompt = resolve_prompt(args.prompt, note)
    return cwd, [*images, {"type": "text", "text": prompt}], schema


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `tether exec` (dispatched from `tether`'s CLI)."""
    try:
        args = parse(list(sys.argv[1:] if argv is None else argv))
    except UsageError as exc:
        note(f"tether exec: error: {exc}")
        return EXIT_USAGE
    try:
        cwd, turn_input, schema = _prepare(args)
    except (InputError, SessionError) as exc:
        note(str(exc))
        return EXIT_FAILED
    except KeyboardInterrupt:  # Ctrl-C while the prompt was being read
        return EXIT_INTERRUPTED
    try:
        return asyncio.run(_Run(args, cwd, turn_input, schema).main())
    except KeyboardInterrupt:  # Ctrl-C before the turn started: nothing to interrupt
        return EXIT_INTERRUPTED
    except (SessionError, TetherClientError, OSError) as exc:
        note(f"tether exec: {exc}")
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
