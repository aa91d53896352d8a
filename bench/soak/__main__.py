"""The soak: one daemon, many clients, mixed traffic for a long time; are RSS, descriptors, tasks
and the database flat after warm-up?

    .venv/bin/python -m bench.soak                    # one hour, 20 clients, 50 threads
    .venv/bin/python -m bench.soak --duration 300     # a five-minute check

Every `--interval` seconds it samples the daemon's RSS, open descriptors, OS threads, asyncio tasks
(`tether_asyncio_tasks` from /metrics), database size (file + WAL + shm) and turns/s. It writes
`soak-<time>.csv` and `soak-<time>.png` (with the `bench` extra: matplotlib) to `--out`, and prints
the slope of each series over the last 80% of the samples, per hour.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path

from bench.runner.rpc import StdioServer, WsClient
from bench.soak.samples import (
    Sample,
    db_mb,
    open_fds,
    plot,
    rss_mb_and_threads,
    scrape_tasks,
    slope_per_hour,
    write_csv,
)
from bench.soak.traffic import Driver, Plan, Tally, keep_model_fed

from tether_testing.fake_responses import FakeResponsesServer

OUT = Path(__file__).resolve().parent.parent / "results" / "soak"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=3600, help="seconds of traffic (default 3600)")
    parser.add_argument("--interval", type=float, default=10, help="seconds between samples (default 10)")
    parser.add_argument("--clients", type=int, default=20, help="at most --threads: each owns threads")
    parser.add_argument("--threads", type=int, default=50)
    parser.add_argument(
        "--think-ms", type=float, default=200, help="mean pause between a client's operations"
    )
    parser.add_argument(
        "--rotate-after", type=int, default=20, help="turns before a thread is archived and replaced"
    )
    parser.add_argument(
        "--retire",
        choices=("delete", "archive"),
        default="delete",
        help="what happens to a retired thread (delete: the database levels off; archive: it keeps growing)",
    )
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--keep-home", action="store_true", help="keep the scratch TETHER_HOME")
    args = parser.parse_args()
    if not 0 < args.clients <= args.threads:
        parser.error("--clients must be between 1 and --threads: every client owns at least one thread")
    return args


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _daemon_argv(base_url: str, port: int) -> list[str]:
    provider = {
        "model": '"gpt-test"',
        "model_provider": '"mock"',
        "model_providers.mock.name": '"mock"',
        "model_providers.mock.base_url": f'"{base_url}"',
        "model_providers.mock.wire_api": '"responses"',
        "model_providers.mock.request_max_retries": "0",
        "model_providers.mock.stream_max_retries": "0",
        "allow_login_shell": "false",
    }
    overrides = [arg for key, value in provider.items() for arg in ("-c", f"{key}={value}")]
    listen = ["--listen", f"ws://127.0.0.1:{port}", "--ws-auth", "none", "--metrics"]
    return [sys.executable, "-m", "tether_server", "app-server", *listen, *overrides]


async def _ready(url: str) -> None:
    async with asyncio.timeout(60):
        while True:
            try:
                client = await WsClient.connect(url)
            except OSError:
                await asyncio.sleep(0.1)  # the daemon is still starting
                continue
            await client.close()
            return


async def _threads(url: str, workdir: Path, count: int) -> list[str]:
    client = await WsClient.connect(url)
    await client.initialize()
    params = {"cwd": str(workdir), "sandbox": "workspace-write", "approvalPolicy": "on-request"}
    ids = [(await client.request("thread/start", params))["thread"]["id"] for _ in range(count)]
    await client.close()
    return [str(i) for i in ids]


async def _sample_every(
    interval: float, pid: int, home: Path, metrics_url: str, tally: Tally, samples: list[Sample]
) -> None:
    started = last_at = time.monotonic()
    last_turns = 0
    while True:
        await asyncio.sleep(interval - (time.monotonic() - started) % interval)
        now = time.monotonic()
        rss, threads = rss_mb_and_threads(pid)
        tasks = await asyncio.to_thread(scrape_tasks, metrics_url)
        turns = tally.turns_completed + tally.turns_failed + tally.turns_interrupted
        sample = Sample(
            elapsed_s=now - started,
            rss_mb=rss,
            fds=open_fds(pid),
            os_threads=threads,
            tasks=tasks,
            db_mb=db_mb(home),
            turns_per_s=(turns - last_turns) / (now - last_at),
            turns_total=turns,
        )
        samples.append(sample)
        last_turns, last_at = turns, now
        print(
            f"{sample.elapsed_s:7.0f}s  rss {sample.rss_mb:7.1f} MB  fds {sample.fds:4d}  "
            f"tasks {tasks:5.0f}  db {sample.db_mb:6.1f} MB  "
            f"{sample.turns_per_s:5.2f} turns/s  ({turns} turns)",
            flush=True,
        )


async def soak(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    scratch = Path(tempfile.mkdtemp(prefix="tether-soak-"))
    home, workdir = scratch / "home", scratch / "project"
    home.mkdir()
    workdir.mkdir()
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    tally = Tally()
    samples: list[Sample] = []
    stop_feeding = asyncio.Event()
    print(
        f"soak: seed {seed}, {args.duration:.0f} s, {args.clients} clients, {args.threads} threads, "
        f"home {home}"
    )
    # SIGTERM (or SIGINT, ignored in background jobs) ends the soak early; the daemon is still stopped.
    current = asyncio.current_task()
    assert current is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, current.cancel)
    async with FakeResponsesServer() as fake:
        feeder = asyncio.create_task(keep_model_fed(fake, rng, stop_feeding))
        port = _free_port()
        os.environ["TETHER_HOME"] = str(home)
        daemon = await StdioServer.spawn(
            _daemon_argv(fake.base_url, port), scratch / "daemon.stderr.log", workdir
        )
        url = f"ws://127.0.0.1:{port}"
        try:
            await _ready(url)
            thread_ids = await _threads(url, workdir, args.threads)
            plan = Plan(
                url, list(thread_ids), str(workdir), args.rotate_after, args.think_ms / 1000, args.retire
            )
            drivers = [
                Driver(plan, thread_ids[index :: args.clients], random.Random(rng.random()), tally)
                for index in range(args.clients)
            ]
            sampler = asyncio.create_task(
                _sample_every(
                    args.interval, daemon.pid, home, f"http://127.0.0.1:{port}/metrics", tally, samples
                )
            )
            deadline = asyncio.get_running_loop().time() + args.duration
            outcomes = await asyncio.gather(*(d.run(deadline) for d in drivers), return_exceptions=True)
            sampler.cancel()
            for outcome in outcomes:
                if isinstance(outcome, BaseException):
                    tally.error(f"client died: {type(outcome).__name__}: {outcome}")
        finally:
            stop_feeding.set()
            await feeder
            code = await daemon.close(grace_s=30, terminate=True)
    csv_path, png_path = args.out / f"soak-{stamp}.csv", args.out / f"soak-{stamp}.png"
    write_csv(csv_path, samples)
    title = f"tether soak {stamp}: {args.clients} clients, {args.threads} threads, {args.duration:.0f} s"
    plotted = plot(png_path, samples, title)
    _report(tally, samples, code, csv_path, png_path if plotted else None)
    if args.keep_home:
        print(f"home kept: {home}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0 if code == 0 and not tally.duplicates else 1


def _report(tally: Tally, samples: list[Sample], code: int | None, csv_path: Path, png: Path | None) -> None:
    print("\n== soak figures ==")
    print(
        f"turns: {tally.turns_completed} completed, {tally.turns_failed} failed, "
        f"{tally.turns_interrupted} interrupted, {tally.turns_refused} refused; "
        f"approvals answered {tally.approvals}; threads retired and replaced {tally.rotations}; "
        f"reconnects {tally.reconnects} "
        f"(duplicate events after afterSeq: {tally.duplicates}); "
        f"thread/list {tally.lists}, thread/read {tally.reads}"
    )
    if samples:
        first, last = samples[0], samples[-1]
        print(
            f"first → last sample: rss {first.rss_mb:.1f} → {last.rss_mb:.1f} MB, "
            f"fds {first.fds} → {last.fds}, "
            f"tasks {first.tasks:.0f} → {last.tasks:.0f}, db {first.db_mb:.1f} → {last.db_mb:.1f} MB, "
            f"mean {sum(s.turns_per_s for s in samples) / len(samples):.2f} turns/s"
        )
    units = {"rss_mb": "MB/h", "fds": "fds/h", "tasks": "tasks/h", "os_threads": "threads/h", "db_mb": "MB/h"}
    for attr, unit in units.items():
        slope = slope_per_hour(samples, attr)
        print(
            f"slope after warm-up, {attr}: "
            + ("n/a (too few samples)" if slope is None else f"{slope:+.2f} {unit}")
        )
    for what, count in sorted(tally.errors.items(), key=lambda kv: -kv[1])[:10]:
        print(f"  error x{count}: {what}")
    print(f"daemon exit code after SIGTERM: {code}")
    print(f"csv: {csv_path}")
    print(f"plot: {png}" if png else "plot: not drawn (install the bench extra: pip install -e '.[bench]')")


def main() -> int:
    args = _args()
    with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
        return asyncio.run(soak(args))
    return 130


if __name__ == "__main__":
    sys.exit(main())
