"""`WorkerMetrics.record` sorts a batch's outputs by topic (once per topic name) and reads only
the events topics' dedupe ids: the counts must be those of main's scan, which read every
output's dedupe id (each liveness record's built on reading, ~4% of the worker's CPU)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from prometheus_client import CollectorRegistry

from streams.adapters.prometheus.worker import WorkerMetrics
from streams.codec import Output
from streams.scaleout.batch import Batch
from tests.streams.scaleout.local_world import NAMES, PARTS, World
from tests.streams.scaleout.procs_harness import disturbed
from tests.streams.scaleout.test_procs_differential import DEMO, PLAIN

#: Samples that differ between two registries whatever was counted (creation and wall times).
_TIMED = ("_created", "jackpot_last_event_timestamp_seconds")


def main_record(
    metrics: WorkerMetrics,
    processor: str,
    outcomes: Iterable[str],
    outputs: Iterable[Output],
    seconds: float,
) -> None:
    """Main's `WorkerMetrics.record` (fe01586), verbatim but for ``self``: the reference."""
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome] = counts.get(outcome, 0) + 1
    for outcome, count in counts.items():
        metrics.inputs.labels(processor, outcome).inc(count)
    produced = 0
    for out in outputs:
        produced += 1
        if out.topic.endswith(".awards"):
            metrics._award(out.value)
        elif out.dedupe_id.startswith("rejected@") and out.topic.endswith(".events"):
            metrics._rejection(out.value)
    metrics.outputs.labels(processor).inc(produced)
    metrics.processing_seconds.labels(processor).observe(seconds)
    if counts:
        metrics.last_event.set(time.time())


def samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample a scrape shows, but the timed ones."""
    found = {}
    for family in registry.collect():
        for sample in family.samples:
            if not any(part in sample.name for part in _TIMED):
                found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def batches(text: str, count: int, seed: int) -> list[Batch]:
    """A disturbed floor's batches (bad lines dead-lettered, refused events, jackpots, retries,
    heartbeats) as one worker decides them, owning some meter-claims partitions and not others:
    table events, meter events, awards, rejections, dead letters, liveness records, claims."""
    world = World(text, bytes(range(32)))  # the demo floor has a mystery level
    for table, line in disturbed(text, count, seed, 0.3):
        world.append(NAMES.table_events, table, line)
    decided = []
    for turn in range(count):
        batch = world.table_batch([p for p in range(PARTS) if (turn + p) % 3], 40)
        if not batch.records:
            break
        world.commit(batch)
        decided.append(batch)
    for part in range(PARTS):  # what the owners of the claims left in the topic decide
        batch = world.claims_batch((NAMES.meter_claims, part), 10_000)
        world.commit(batch)
        decided.append(batch)
    return decided


def counted(record: Any, decided: list[Batch]) -> WorkerMetrics:
    """A fresh worker's metrics after ``record`` counted every batch as `TxLoop.finish` does."""
    metrics = WorkerMetrics()
    for batch in decided:
        for name, outcomes in batch.outcomes.items():
            record(metrics, name, outcomes, batch.outputs.get(name, []), 0.02)
    return metrics


def test_every_count_is_main_scans() -> None:
    decided = batches(PLAIN, 600, 13) + batches(DEMO, 400, 31)
    ours = counted(WorkerMetrics.record, decided)
    mains = counted(main_record, decided)
    assert samples(ours.registry) == samples(mains.registry)
    outputs = [out for batch in decided for outs in batch.outputs.values() for out in outs]
    by_topic = {out.topic for out in outputs}  # the input covers every kind of output
    assert {NAMES.events, NAMES.awards, NAMES.liveness, NAMES.dead_letter} <= by_topic
    shown = samples(ours.registry)
    rejections = sum(v for (n, _), v in shown.items() if n == "jackpot_rejections_total")
    awards = sum(v for (n, _), v in shown.items() if n == "jackpot_awards_total")
    dead = [out for out in outputs if out.topic == NAMES.dead_letter]
    assert rejections > 10  # refused events were counted
    assert awards > 10
    assert dead  # dead letters carry ``rejected@`` ids too, and are not rejections
    assert all(out.dedupe_id.startswith("rejected@") for out in dead)


class Peeked(Output):
    """An output whose dedupe id is read through a property that counts its readers, as a
    liveness record's is built on reading (`streams.scaleout.heard.Heard`)."""

    __slots__ = ()
    reads: list[str] = []  # noqa: RUF012 - the test's own tally

    @property
    def dedupe_id(self) -> str:
        Peeked.reads.append(self.topic)
        if self.topic == "p.dead-letter":
            return "rejected@p.table-events:0:2"
        return "heard@p.table-events:0:1" if self.topic == "p.liveness" else "e1"


def peeked(topic: str) -> Peeked:
    out = Peeked.__new__(Peeked)
    for name, value in (("topic", topic), ("key", "t1"), ("value", b"{}")):
        vars(Output)[name].__set__(out, value)
    vars(Output)["latest_wins"].__set__(out, topic == "p.liveness")
    return out


def test_only_the_events_topics_dedupe_ids_are_read() -> None:
    # 300 liveness records, 100 claims, 100 dead letters and 2 events records in three batches:
    # only the events records' ids are read, and a dead letter's ``rejected@`` is no rejection
    metrics = WorkerMetrics()
    Peeked.reads.clear()
    rejected = json.dumps({"reason": "unknown table 't9'", "event_type": "round_opened"})
    events = Output("p.events", "t1", rejected.encode(), "rejected@p.table-events:0:9")
    for _ in range(3):
        batch = [peeked("p.liveness") for _ in range(100)]
        batch += [peeked("p.meter-claims") for _ in range(33)]
        batch += [peeked("p.dead-letter") for _ in range(33)]
        metrics.record("round", ["accepted"] * 100, [*batch, events], 0.01)
    metrics.record("round", ["accepted"], [peeked("p.events")], 0.01)
    assert Peeked.reads == ["p.events"]
    shown = samples(metrics.registry)
    assert shown[("jackpot_rejections_total", (("reason_class", "unknown_table"),))] == 3
    assert shown[("jackpot_outputs_total", (("processor", "round"),))] == 3 * 167 + 1
