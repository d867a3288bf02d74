"""The worker's side of the "kafka latency" row: its per-batch phase lines
(`streams.adapters.kafka.phases`, asked for with ``JACKPOT_KAFKA_PHASES``) summed up as p50/p99
per phase (and the partitions each batch's transaction wrote), so a round's stages
(`bench.kafka_latency_clock.STAGES`) can be read against what the worker's loop did meanwhile.

Phases per batch, in loop order: ``take`` (waiting for records and for the gather window),
``decide`` (with the records that came while the previous batch still committed, decided into
the batch: `streams.scaleout.batch.more`), ``wait_commit`` (the previous batch's commit still
running), ``produce`` (begin, the
outputs and state produced), ``send_offsets`` and ``commit`` (the commit thread's two calls; each
waits while the previous transaction's markers are still being written: the coordinator answers
CONCURRENT_TRANSACTIONS and librdkafka asks again), and ``batch`` (all of it). ``claims_pickup``:
from the commit that made a batch's claims visible until the meter lane took them (the markers,
the consumer's fetch, and the loop's own step in progress)."""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.common import Figure
from bench.latency import percentile

#: (name, from stamp, to stamp) per batch
PHASES = (
    ("take", "t0", "taken"),
    ("decide", "taken", "decided"),
    ("wait_commit", "decided", "finished"),
    ("produce", "finished", "produced"),
    ("send_offsets", "produced", "offsets_sent"),
    ("commit", "offsets_sent", "committed"),
    ("batch", "t0", "committed"),
)
CLAIMS = "meter-claims"


def read_lines(paths: Iterable[Path], since: float) -> list[dict[str, Any]]:
    """The committed batches begun at or after ``since`` (wall-clock seconds), by start."""
    rows = []
    for path in paths:
        for line in path.read_text("utf-8").splitlines():
            row = json.loads(line)
            if row["t0"] >= since and row["committed"] > 0:
                rows.append(row)
    return sorted(rows, key=lambda row: row["t0"])


def pickups_ms(rows: list[dict[str, Any]]) -> list[float]:
    """Per batch holding claims: its take minus the commit of the batch that produced the
    newest of them (the one whose produce window holds the claim's CreateTime)."""
    starts = [row["finished"] for row in rows]
    gaps = []
    for row in rows:
        span = next((v for t, v in row["lanes"].items() if t.endswith(CLAIMS)), None)
        if span is None:
            continue
        index = bisect.bisect_right(starts, span[2]) - 1
        if index >= 0 and span[2] <= rows[index]["produced"]:
            gaps.append((row["taken"] - rows[index]["committed"]) * 1000)
    return gaps


def phase_figures(paths: Iterable[Path], since: float) -> dict[str, Figure]:
    """p50/p99 (ms) of each of `PHASES` and of ``claims_pickup``, records per batch per lane."""
    rows = read_lines(paths, since)
    if not rows:
        return {}
    figures: dict[str, Figure] = {"batches": len(rows)}
    gaps = {name: [(r[end] - r[start]) * 1000 for r in rows] for name, start, end in PHASES}
    gaps["claims_pickup"] = pickups_ms(rows)
    for name, values in gaps.items():
        figures[f"{name}_p50_ms"] = round(percentile(values, 0.5), 1)
        figures[f"{name}_p99_ms"] = round(percentile(values, 0.99), 1)
    for topic in sorted({t for row in rows for t in row["lanes"]}):
        count = sum(row["lanes"].get(topic, [0])[0] for row in rows)
        figures[f"{topic.rsplit('.', 1)[-1]}_per_batch"] = round(count / len(rows), 1)
    return {**figures, **partition_figures(rows)}


def partition_figures(rows: list[dict[str, Any]]) -> dict[str, Figure]:
    """Partitions each batch's transaction wrote (its outputs and state, without the group's
    offsets), mean and p99 over the batches that wrote any: what the commit's markers cost
    grows with (docs/kafka.md "Speed")."""
    counts = [sum(len(p) for p in row.get("written", {}).values()) for row in rows]
    writing = [row for row, c in zip(rows, counts, strict=True) if c]
    counts = [c for c in counts if c]
    if not counts:
        return {}
    figures: dict[str, Figure] = {
        "partitions_per_batch": round(sum(counts) / len(counts), 1),
        "partitions_p99": percentile([float(c) for c in counts], 0.99),
    }
    for topic in sorted({t for row in writing for t in row["written"]}):
        each = sum(len(row["written"].get(topic, ())) for row in writing) / len(writing)
        short = topic.rsplit(".", 1)[-1].rsplit("controller-", 1)[-1]
        figures[f"partitions_{short}"] = round(each, 1)
    return figures
