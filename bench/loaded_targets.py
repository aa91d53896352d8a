"""Issue 31's loaded-daemon targets, Tether against the reference Codex, interleaved (T C T C …).

    .venv/bin/python -m bench.loaded_targets [--reps 10] [cmd cmd_default ts eof_idle eof_turn]

- `cmd`: one turn of 10 `exec_command true` (workspace-write, approval never, `allow_login_shell`
  false for both, as W5 of `bench.runner`): the median time from
  a command's `item/started` to its `item/completed` at the client (the first two of each run are
  left out: Codex builds its shell snapshot then), and the median gap between two commands'
  `item/completed` (what a command costs the turn).
- `cmd_default`: the same with both servers' defaults, so each command in a login shell: the
  machine's profile, read once per thread through the shell snapshot (`features.shell_snapshot`).
- `ts`: a daemon with one thread, then 3 rounds of 20 `thread/start` sent at once: their mean
  latency.
- `eof_idle` / `eof_turn`: stdin closed with one idle thread / during a turn (its model reply
  never comes) until the process exits; for Tether, the store must then hold the turn as
  interrupted.

Each run uses a fresh home under a scratch directory outside /tmp (Codex refuses some /tmp homes),
the fake Responses server of `tether_testing` in its own process, and the Codex binary of
`bench.runner.targets` (`TETHER_BENCH_CODEX`). Results are medians over the runs.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from bench.runner.targets import CODEX_BIN

from tether_testing import script

Message = dict[str, Any]
ROOT = Path(__file__).resolve().parent.parent
SCRATCH = Path(os.environ.get("TETHER_BENCH_SCRATCH", "/opt/bench-scratch/loaded"))
COMMANDS = 10


def _provider_args(url: str, defaults: bool = False) -> list[str]:
    keys = {
        "model": '"gpt-test"',
        "model_provider": '"mock"',
        "model_providers.mock.name": '"mock"',
        "model_providers.mock.base_url": f'"{url}"',
        "model_providers.mock.wire_api": '"responses"',
        # As W5 of the runner: a login shell would time the machine's profile, not the server.
        "allow_login_shell": "false",
    }
    if defaults:
        # `cmd_default`: the login shell as users get it (Codex and Tether: its snapshot).
        del keys["allow_login_shell"]
    return [arg for key, value in keys.items() for arg in ("-c", f"{key}={value}")]


def _command(target: str) -> tuple[list[str], str]:
    if target == "tether":
        return [str(ROOT / ".venv/bin/tether"), "app-server"], "TETHER_HOME"
    return [str(CODEX_BIN), "app-server"], "CODEX_HOME"


class FakeModel:
    """The scripted Responses server, looping over `steps`."""

    def __init__(self, steps: list[Any], work: Path) -> None:
        path = work / f"script-{time.monotonic_ns()}.json"
        path.write_text(json.dumps(steps))
        argv = [sys.executable, "-m", "tether_testing.fake_responses", "--script", str(path), "--loop"]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().split()[-1]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait()


class Server:
    """One app-server over stdio, initialized, in a fresh home and workspace."""

    def __init__(self, target: str, url: str, work: Path, defaults: bool = False) -> None:
        argv, home_var = _command(target)
        self.home = Path(tempfile.mkdtemp(dir=work))
        self.workspace = Path(tempfile.mkdtemp(dir=work))
        env = {**os.environ, home_var: str(self.home)}
        self.proc = subprocess.Popen(
            [*argv, *_provider_args(url, defaults)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.send(
            {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "bench", "version": "1"}}}
        )
        self.until(lambda m: m.get("id") == 1)
        self.send({"method": "initialized"})

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        return self.proc.stdin, self.proc.stdout

    def send(self, message: Message) -> None:
        stdin, _ = self._pipes()
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def receive(self) -> tuple[Message, float]:
        line = self._pipes()[1].readline()
        if not line:
            raise RuntimeError(f"the server closed its output (home {self.home})")
        message: Message = json.loads(line)
        return message, time.perf_counter()

    def until(
        self, done: Callable[[Message], bool], seen: Callable[[Message, float], None] | None = None
    ) -> Message:
        while True:
            message, now = self.receive()
            if seen is not None:
                seen(message, now)
            if done(message):
                return message

    def thread(self, **params: Any) -> str:
        self.send({"id": 2, "method": "thread/start", "params": {"cwd": str(self.workspace), **params}})
        answer = self.until(lambda m: m.get("id") == 2)
        return str(answer["result"]["thread"]["id"])

    def turn(self, thread_id: str) -> None:
        text = [{"type": "text", "text": "go"}]
        self.send({"id": 3, "method": "turn/start", "params": {"threadId": thread_id, "input": text}})

    def eof_ms(self) -> float:
        stdin, _ = self._pipes()
        start = time.perf_counter()
        stdin.close()
        self.proc.wait()
        return (time.perf_counter() - start) * 1000


def commands(target: str, url: str, work: Path, defaults: bool = False) -> dict[str, float]:
    server = Server(target, url, work, defaults)
    thread_id = server.thread(sandbox="workspace-write", approvalPolicy="never")
    started: dict[str, float] = {}
    latency: list[float] = []
    completed: list[float] = []

    def seen(message: Message, now: float) -> None:
        item = message.get("params", {}).get("item", {})
        if item.get("type") != "commandExecution":
            return
        if message["method"] == "item/started":
            started[item["id"]] = now
        elif message["method"] == "item/completed":
            latency.append((now - started[item["id"]]) * 1000)
            completed.append(now)

    server.turn(thread_id)
    server.until(lambda m: m.get("method") == "turn/completed", seen)
    server.eof_ms()
    gaps = [(b - a) * 1000 for a, b in itertools.pairwise(completed[2:])]
    suffix = " (default)" if defaults else ""
    return {f"cmd item{suffix}": statistics.median(latency[2:]), f"cmd gap{suffix}": statistics.median(gaps)}


def thread_starts(target: str, url: str, work: Path) -> dict[str, float]:
    server = Server(target, url, work)
    server.thread()
    latency: list[float] = []
    for round_ in range(3):
        sent: dict[int, float] = {}
        for i in range(20):
            request_id = 100 * round_ + 10 + i
            sent[request_id] = time.perf_counter()
            server.send(
                {"id": request_id, "method": "thread/start", "params": {"cwd": str(server.workspace)}}
            )
        answered = 0
        while answered < len(sent):
            message, now = server.receive()
            if message.get("id") in sent:
                latency.append((now - sent[message["id"]]) * 1000)
                answered += 1
    server.eof_ms()
    return {"thread/start x20": statistics.mean(latency)}


def eof(target: str, url: str, work: Path, mid_turn: bool) -> dict[str, float]:
    server = Server(target, url, work)
    thread_id = server.thread()
    if mid_turn:
        server.turn(thread_id)
        server.until(lambda m: m.get("method") == "turn/started")
    took = server.eof_ms()
    if target == "tether" and mid_turn:
        with sqlite3.connect(server.home / "tether.sqlite") as db:
            stored = db.execute("SELECT status FROM turns").fetchall()
        if stored != [("interrupted",)]:
            raise RuntimeError(f"the turn running at EOF is stored as {stored}")
    return {("eof mid-turn" if mid_turn else "eof idle"): took}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("workloads", nargs="*", default=["cmd", "cmd_default", "ts", "eof_idle", "eof_turn"])
    args = parser.parse_args()
    SCRATCH.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=SCRATCH))
    exec_true = script.reply(script.function_call("exec_command", {"cmd": "true"}))
    scripts: dict[str, list[Any]] = {
        "cmd": [exec_true] * COMMANDS + [script.text_reply("done")],
        "cmd_default": [exec_true] * COMMANDS + [script.text_reply("done")],
        "ts": [script.text_reply("x")],
        "eof_idle": [script.text_reply("x")],
        "eof_turn": [script.reply(script.gated("never"), script.message("x"))],
    }
    runs: dict[str, Callable[[str, str, Path], dict[str, float]]] = {
        "cmd": commands,
        "cmd_default": lambda t, u, w: commands(t, u, w, defaults=True),
        "ts": thread_starts,
        "eof_idle": lambda t, u, w: eof(t, u, w, mid_turn=False),
        "eof_turn": lambda t, u, w: eof(t, u, w, mid_turn=True),
    }
    samples: dict[tuple[str, str], list[float]] = {}
    load_before = os.getloadavg()[0]
    for workload in args.workloads:
        model = FakeModel(scripts[workload], work)
        try:
            for _ in range(args.reps):
                for target in ("tether", "codex"):
                    for metric, value in runs[workload](target, model.url, work).items():
                        samples.setdefault((metric, target), []).append(value)
        finally:
            model.close()
    header = f"{'metric':18} {'tether ms':>10} {'codex ms':>10} {'ratio':>6}"
    print(f"{header}   (median of {args.reps} interleaved runs)")
    for metric in dict.fromkeys(m for m, _ in samples):
        ours, theirs = (statistics.median(samples[(metric, t)]) for t in ("tether", "codex"))
        print(f"{metric:18} {ours:10.1f} {theirs:10.1f} {ours / theirs:6.2f}")
    print(f"load average: {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
