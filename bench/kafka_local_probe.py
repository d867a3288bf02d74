"""The worker's Python work per table event with and without local apply, no Kafka: for
instruction counts (``valgrind --tool=cachegrind``) and CPU time, not a bench row.

``python -m bench.kafka_local_probe {local,topic} [events] [warm]``: the bench's example floor
(`bench.workload`, seed 20261129) in batches of 500 as `streams.scaleout.batch.decide` takes
them, all partitions owned. ``local``: claims applied in the round lane's batch
(`streams.scaleout.local_apply`). ``topic``: every claim written, then read back and decided by
the meter lane in a batch of its own (main's path). Both write what the loop writes per batch:
the value of each output it keeps (`coalesced`: a table's last liveness record of the batch,
not one per input) and each touched key's state record (`Writes.state`), and count the batch in
the worker's metrics (`WorkerMetrics.record`, as `TxLoop.finish` does). Prints the events, the
meter-claims records and the seconds of CPU.

As the worker runs (issue 13, branch ``k13-s16``): under the worker's process setting
(`streams.process.settled_gc`, as ``jackpot kafka worker`` runs; the default collector walked the
probe's state ~6k instructions an event that the worker never pays), and with each input's
partition found before the count starts (the broker places the worker's inputs; Kafka's hash in
Python was ~11.7k instructions an input, counted as the worker's). ``BENCH_PROBE_LINES=<file>``: the
input lines read from (first written to) that file, so that a cachegrind count holds the
worker's work and not the simulator's.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import Message

from bench.workload import events, example_floor, to_line
from controller.config.floor import FloorConfig
from controller.fast import hands
from streams.adapters.kafka.topics import TopicNames
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.process import settled_gc
from streams.scaleout.batch import Batch, decide
from streams.scaleout.grow import walker
from streams.scaleout.local_apply import LocalApply, key_partition
from streams.scaleout.meters import MeterProcessor, meter_record_from_bytes, meter_record_to_bytes
from streams.scaleout.open_rounds import OpenRoundProcessor
from streams.scaleout.records import coalesced
from streams.scaleout.rounds import table_record_from_bytes, table_record_to_bytes
from streams.scaleout.store import Lane, PartitionState

NAMES = TopicNames("probe")
PARTS = 6
BATCH = 500
LINES_ENV = "BENCH_PROBE_LINES"
#: Set (to anything): the round lane without its native walk (`streams.scaleout.grow`), as main
NO_WALK_ENV = "BENCH_PROBE_NO_WALK"
#: Set: each batch's records ordered by partition (stable), as a consumer's fetches give them
#: to the worker (runs of a partition), not in the stream's order (a partition change nearly
#: every input: the worker's native walk of a partition's run, `streams.scaleout.grow`, then
#: hands back at every record)
RUNS_ENV = "BENCH_PROBE_RUNS"
#: Every input's broker stamp: (create time, its milliseconds)
STAMP = (1, 1_796_000_000_000)


@dataclass(frozen=True, slots=True)
class Consumed:
    """What `decide` reads of a consumed record (a confluent-kafka ``Message``'s methods);
    also the unit tests' (`tests.streams.scaleout.local_world`)."""

    where: tuple[str, int]
    at: int
    key_bytes: bytes | None
    raw: bytes

    def topic(self) -> str:
        return self.where[0]

    def partition(self) -> int:
        return self.where[1]

    def offset(self) -> int:
        return self.at

    def key(self) -> bytes | None:
        return self.key_bytes

    def value(self) -> bytes:
        return self.raw

    def timestamp(self) -> tuple[int, int]:
        return STAMP


def message(where: tuple[str, int], at: int, key: bytes, raw: bytes) -> Message:
    """A consumed record as the worker gets it: confluent-kafka's own ``Message`` (its methods
    in C). `Consumed`'s six methods are Python calls, ~6k instructions an input that cachegrind
    counted as the worker's (issue 13, branch ``k13-s24``)."""
    return Message(where[0], where[1], at, key, raw, timestamp=STAMP)


def _written(batch: Batch, lanes: dict[str, Lane[Any]], ends: dict[int, int]) -> list[Message]:
    """Encode what the loop produces; the claims, as the meter lane would read them (``ends``:
    the next offset of each meter-claims partition)."""
    claims = []
    for outputs in batch.outputs.values():
        for out in coalesced(outputs):
            if out.topic == NAMES.meter_claims:
                key = out.key.encode()
                part = key_partition(key, PARTS)
                offset = ends[part] = ends.get(part, 0) + 1
                claims.append(message((NAMES.meter_claims, part), offset, key, out.value))
            else:
                _ = out.value
    for (topic, _part), records in batch.states.items():
        for record in records.values():
            lanes[topic].to_bytes(record)
    return claims


def _commit(
    batch: Batch, states: dict[tuple[str, int], PartitionState[Any]], metrics: WorkerMetrics
) -> None:
    """The batch's records and progress into the in-memory state (`TxLoop._apply`), and the
    batch counted (`TxLoop.finish`)."""
    for where, records in batch.states.items():
        states[where].records.update(records)
    for where, offset in batch.progress.items():
        states[where].progress = offset
    for name, outcomes in batch.outcomes.items():
        metrics.record(name, outcomes, batch.outputs.get(name, []), 0.0)


def run(mode: str, count: int) -> tuple[int, int, float]:
    """(events, claims written, CPU seconds) of ``count`` events in ``mode``."""
    _, config = example_floor()
    meters = MeterProcessor(config, NAMES)
    runs = bool(os.environ.get(RUNS_ENV))
    rounds = OpenRoundProcessor(config, NAMES)
    walk = None if os.environ.get(NO_WALK_ENV) else walker(rounds)
    lanes: dict[str, Lane[Any]] = {
        NAMES.table_events: Lane(
            "round", NAMES.table_events, "", rounds.process_open,
            table_record_to_bytes, table_record_from_bytes, walk=walk,
        ),
        NAMES.meter_claims: Lane(
            "meter", NAMES.meter_claims, "", meters.process,
            meter_record_to_bytes, meter_record_from_bytes,
        ),
    }  # fmt: skip
    local = LocalApply(meters, NAMES.meter_claims, PARTS) if mode == "local" else None
    states: dict[tuple[str, int], PartitionState[Any]] = {
        (t, p): PartitionState(progress=0) for t in lanes for p in range(PARTS)
    }
    places: dict[bytes, int] = {}  # each table's partition found once (`_placed`)
    lines = [(_placed(places, k), k, v) for k, v in _lines(config, count)]
    metrics = WorkerMetrics()
    ends: dict[int, int] = {}
    with settled_gc():  # the worker's process setting (module docstring)
        written, started = 0, time.process_time()
        for start in range(0, len(lines), BATCH):
            msgs = [
                message((NAMES.table_events, part), start + i, k, v)
                for i, (part, k, v) in enumerate(lines[start : start + BATCH])
            ]
            if runs:  # as a consumer's fetches give them: each partition's records together
                msgs.sort(key=lambda m: m.partition() or 0)
            batch = decide(msgs, lanes, states, local)
            _commit(batch, states, metrics)
            claims = _written(batch, lanes, ends)
            written += len(claims)
            if claims:  # the meter lane's batch (main: in a later transaction)
                claimed = decide(claims, lanes, states)
                _commit(claimed, states, metrics)
                _written(claimed, lanes, ends)
        return len(lines), written, time.process_time() - started


def _placed(places: dict[bytes, int], key: bytes) -> int:
    """The partition of a table's events (Kafka's hash in Python, ~6.1k instructions a call:
    once per table, not per input: the broker places the worker's inputs)."""
    found = places.get(key)
    if found is None:
        found = places[key] = key_partition(key, PARTS)
    return found


def _lines(config: FloorConfig, count: int) -> list[tuple[bytes, bytes]]:
    """(key, line) of the first ``count`` events, from `LINES_ENV`'s file if it is set (written
    there on first use: the simulation's own instructions stay out of a cachegrind count)."""
    path = os.environ.get(LINES_ENV)
    if path and Path(path).exists():
        got = [line.split(b"\t", 1) for line in Path(path).read_bytes().splitlines()[:count]]
        if len(got) == count:
            return [(key, line) for key, line in got]
    lines = [(str(e["table_id"]).encode(), to_line(e)) for e in events(config, count, 20261129)]
    if path:
        Path(path).write_bytes(b"".join(key + b"\t" + line + b"\n" for key, line in lines))
    return lines


def main() -> None:
    """``python -m bench.kafka_local_probe {local,topic} [events] [warm]``: with ``warm``, the
    first ``warm`` events decided once before (on state of their own) and the formed-hands memo
    forgotten (`controller.fast.hands.clear`), so that a count holds a warm worker's work: the
    names of each hand classification are asked of the reference the first time it is met
    (~12.7k instructions an event of the 500 -> 3,000 marginal, cold, 2026-12-03), which a
    worker pays once in its life."""
    mode = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 5_000
    if len(sys.argv) > 3:
        run(mode, int(sys.argv[3]))
        hands.clear()
    done, written, cpu = run(mode, count)
    print(f"{mode}: {done} events, {written} claims written, {cpu:.3f} s CPU")


if __name__ == "__main__":
    main()
