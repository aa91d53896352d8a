"""Summaries (median, min-max, ratio A/B, target met) as a table and as JSON."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from bench.runner.framework import Metric, Sample, Workload
from bench.runner.rpc import Json


@dataclass(frozen=True)
class Summary:
    """One target's values of one metric over the repetitions."""

    median: float
    low: float
    high: float
    count: int

    def text(self, unit: str) -> str:
        """``median [min-max]`` with sensible rounding."""
        return f"{_fmt(self.median)} [{_fmt(self.low)}-{_fmt(self.high)}] {unit}"


def _fmt(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def summarize(samples: list[Sample], key: str) -> Summary | None:
    """Median and range of `key` over the samples that measured it."""
    values = [s.values[key] for s in samples if s.error is None and s.values.get(key) is not None]
    numbers = [v for v in values if v is not None]
    if not numbers:
        return None
    return Summary(statistics.median(numbers), min(numbers), max(numbers), len(numbers))


def why_missing(samples: list[Sample]) -> str:
    """The first error or note explaining an unmeasured metric."""
    for sample in samples:
        if sample.error:
            return sample.error
        if sample.notes:
            return sample.notes[0]
    return "no samples"


def metric_row(metric: Metric, a: list[Sample], b: list[Sample] | None) -> Json:
    """One metric's comparison: summaries, ratio A/B and whether the target is met."""
    sa, sb = summarize(a, metric.key), summarize(b, metric.key) if b is not None else None
    row: Json = {"metric": metric.key, "label": metric.label, "unit": metric.unit}
    row["a"] = sa.__dict__ | {"failed": len(a) - sa.count} if sa else {"missing": why_missing(a)}
    if b is not None:
        row["b"] = sb.__dict__ | {"failed": len(b) - sb.count} if sb else {"missing": why_missing(b)}
    if sa and metric.absolute and metric.target is not None:
        row.update(target=metric.target, met=metric.met(sa.median))
    elif sa and sb and sb.median and not metric.absolute:
        ratio = sa.median / sb.median
        row.update(ratio=ratio, target=metric.target)
        if metric.target is not None:
            row["met"] = metric.met(ratio)
    return row


def table(workloads: list[Workload], results: dict[str, dict[str, list[Sample]]], names: list[str]) -> str:
    """The comparison table: one line per metric."""
    a_name, b_name = names[0], names[1] if len(names) > 1 else None
    header = f"{'id':<4}{'metric':<34}{a_name + ' median [min-max]':<42}"
    if b_name:
        header += f"{b_name + ' median [min-max]':<42}{'ratio':>7}  {'target':<8}met"
    lines = [header, "-" * len(header)]
    for workload in workloads:
        per_target = results.get(workload.id, {})
        for metric in workload.metrics:
            b_samples = per_target.get(b_name, []) if b_name else None
            row = metric_row(metric, per_target.get(a_name, []), b_samples)
            lines.append(_line(workload.id, metric, row, b_name is not None))
    return "\n".join(lines)


def _cell(side: Json, unit: str) -> str:
    if "missing" in side:
        return "— " + str(side["missing"])[:32]
    text = Summary(side["median"], side["low"], side["high"], side["count"]).text(unit)
    return text + (f" ({side['failed']} failed)" if side.get("failed") else "")


def _line(wid: str, metric: Metric, row: Json, compare: bool) -> str:
    line = f"{wid:<4}{metric.label:<34}{_cell(row['a'], metric.unit):<42}"
    if not compare:
        return line
    line += f"{_cell(row['b'], metric.unit):<42}"
    sign = "≥" if metric.higher_is_better else "≤"
    if "met" in row:
        verdict = "yes" if row["met"] else "NO"
        ratio = f"{row['ratio']:>6.3f}x" if "ratio" in row else f"{'A':>7}"
        line += f"{ratio}  {sign}{metric.target:<6}{verdict}"
    elif "ratio" in row:
        line += f"{row['ratio']:>6.3f}x  {'':<8}—"
    else:
        line += f"{'—':>7}  {'':<8}—"
    return line
