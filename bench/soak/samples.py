"""What the soak samples from the daemon (RSS, descriptors, asyncio tasks, database size, turns/s),
the CSV and plot it writes, and the slopes after warm-up."""

from __future__ import annotations

import contextlib
import csv
import os
import statistics
import urllib.request
from dataclasses import asdict, dataclass, fields
from pathlib import Path

DB_FILES = ("tether.sqlite", "tether.sqlite-wal", "tether.sqlite-shm")
WARM_UP_FRACTION = 0.2  # the slopes are fitted over the last 80% of the samples


@dataclass
class Sample:
    elapsed_s: float
    rss_mb: float
    fds: int
    os_threads: int
    tasks: float
    db_mb: float
    turns_per_s: float
    turns_total: int


def rss_mb_and_threads(pid: int) -> tuple[float, int]:
    rss_kb, threads = 0, 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss_kb = int(line.split()[1])
        elif line.startswith("Threads:"):
            threads = int(line.split()[1])
    return rss_kb / 1024, threads


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def db_mb(home: Path) -> float:
    total = 0
    for name in DB_FILES:
        with contextlib.suppress(FileNotFoundError):
            total += (home / name).stat().st_size
    return total / 2**20


def scrape_tasks(metrics_url: str) -> float:
    """`tether_asyncio_tasks` from the daemon's /metrics (NaN when it cannot be read)."""
    try:
        with urllib.request.urlopen(metrics_url, timeout=5) as response:
            text = response.read().decode()
    except OSError:
        return float("nan")
    for line in text.splitlines():
        if line.startswith("tether_asyncio_tasks "):
            return float(line.split()[1])
    return float("nan")


def write_csv(path: Path, samples: list[Sample]) -> None:
    with path.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=[f.name for f in fields(Sample)])
        writer.writeheader()
        for sample in samples:
            writer.writerow(
                {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(sample).items()}
            )


def slope_per_hour(samples: list[Sample], attr: str) -> float | None:
    """Least-squares slope of `attr` against time over the samples after warm-up, per hour."""
    kept = samples[int(len(samples) * WARM_UP_FRACTION) :]
    points = [(s.elapsed_s, float(getattr(s, attr))) for s in kept if getattr(s, attr) == getattr(s, attr)]
    if len(points) < 3:
        return None
    fit = statistics.linear_regression([p[0] for p in points], [p[1] for p in points])
    return fit.slope * 3600


def plot(path: Path, samples: list[Sample], title: str) -> bool:
    """A PNG of every series against time; False when matplotlib is not installed (`.[bench]`)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    series = [
        ("rss_mb", "RSS (MB)"),
        ("fds", "open descriptors"),
        ("tasks", "asyncio tasks"),
        ("db_mb", "database + WAL (MB)"),
        ("turns_per_s", "turns/s"),
    ]
    minutes = [s.elapsed_s / 60 for s in samples]
    figure, axes = plt.subplots(len(series), 1, figsize=(9, 2.2 * len(series)), sharex=True)
    warm = minutes[int(len(minutes) * WARM_UP_FRACTION)] if minutes else 0
    for ax, (attr, label) in zip(axes, series, strict=True):
        ax.plot(minutes, [getattr(s, attr) for s in samples], linewidth=1)
        ax.axvline(warm, color="grey", linestyle=":", linewidth=1)
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("minutes (dotted: end of warm-up)")
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True
