"""The reader's side of the "kafka latency" row (`bench.kafka_latency`): the rounds the embedded
engine expects, the pacer sending table events at a steady rate, and the ``read_committed``
reader that times each round, stage by stage (`Clock`, `STAGES`); for the plain relay
(`bench.kafka_relay`) the same clock over the ``wagers_locked`` records it copied.

The pacer also notes how late each ``wagers_locked`` was handed to the producer (``send_late``:
the bench's own lateness, a process starved of CPU, which `STAGES`' ``to_claim`` includes)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from confluent_kafka import Consumer, Message, TopicPartition

from bench import workload
from bench.common import EXAMPLE_CONFIG
from bench.kafka_parts import PARTITIONS
from controller.model.events import ContributionRecorded
from streams.adapters.kafka.read import as_bytes
from streams.adapters.memory import MemoryLog
from streams.codec import DEDUPE_HEADER, decode
from streams.embedded.engine import EmbeddedController
from streams.scaleout.ingest import TableEventProducer

RATE = 2_000  # events per second
WARMUP_S = 2.0  # the first transactions (partitions added, metadata) are slow
DRAIN_S = 5.0  # after the last send, how long the reader waits for the stragglers
READER_FETCH_WAIT_MS = 5
Round = tuple[str, str]
STAGES = ("to_claim", "claim_commit", "to_contribution", "contribution_commit")
#: A round in two, for every contender (`Clock.hops_ms`): until its last output was produced
#: (waiting for a batch, deciding, producing) and from there until it was read (the commit,
#: its markers, the reader's fetch). The worker and the relay compare hop by hop.
HOPS = ("to_output", "output_visible")


def expected_contributions(raws: Sequence[dict[str, Any]]) -> Counter[Round]:
    """Per (table_id, round_id): the contributions the embedded engine records for ``raws``."""
    log = MemoryLog()
    controller = EmbeddedController(log, MemoryLog())
    controller.start(workload.example_text(), str(EXAMPLE_CONFIG))
    controller.submit(raws)
    counts: Counter[Round] = Counter()
    for record in log.read():
        event = decode(record.payload)
        if isinstance(event, ContributionRecorded):
            counts[(event.table_id, event.round_id)] += 1
    return counts


@dataclass
class Clock:
    """When each round's wagers_locked was due, and when its last contribution was read."""

    expected: Counter[Round]
    due: dict[Round, float] = field(default_factory=dict)
    seen: Counter[Round] = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    stages_ms: dict[str, list[float]] = field(default_factory=dict)
    counted_from: float = 0.0
    #: per round, the wall-clock times (s): last claim produced, seen; last contribution produced
    claims: dict[Round, list[float]] = field(default_factory=dict)
    late_ms: list[float] = field(default_factory=list)  # per counted wagers_locked: sent - due
    epoch: float = field(default_factory=lambda: time.time() - time.perf_counter())
    relay: bool = False  # timing the plain relay's copies (`read_relayed`), not the worker
    #: per counted round, for the worker and the relay alike (`HOPS`): scheduled send -> the
    #: round's last output produced (its CreateTime), and -> read ``read_committed``
    hops_ms: dict[str, list[float]] = field(default_factory=dict)

    def claim(self, where: Round, produced: float, seen: float) -> None:
        """A contribution claim of round ``where`` read at ``seen`` (``produced``: its
        CreateTime; both wall-clock seconds)."""
        stamps = self.claims.setdefault(where, [0.0, 0.0, 0.0])
        stamps[0], stamps[1] = max(stamps[0], produced), seen

    def read(self, where: Round, now: float, produced: float) -> None:
        """One contribution of round ``where`` read at ``now`` (`time.perf_counter`;
        ``produced``: when the meter lane produced it, its record's CreateTime); the round's
        latency and stages once all of them were."""
        self.seen[where] += 1
        stamps = self.claims.setdefault(where, [0.0, 0.0, 0.0])
        stamps[2] = max(stamps[2], produced)
        due = self.due.get(where)
        if self.seen[where] != self.expected[where] or due is None or due < self.counted_from:
            return
        self.latencies_ms.append((now - due) * 1000)
        output = (stamps[2] - self.epoch - due, now + self.epoch - stamps[2])
        for hop, gap in zip(HOPS, output, strict=True):
            self.hops_ms.setdefault(hop, []).append(gap * 1000)
        if not stamps[0]:  # its claims were not read (a stage from 0 would be 57 years)
            return
        marks = (due + self.epoch, *stamps, now + self.epoch)
        for index, stage in enumerate(STAGES):
            gap = (marks[index + 1] - marks[index]) * 1000
            self.stages_ms.setdefault(stage, []).append(gap)


class Pacer(threading.Thread):
    """Produce ``lines`` at `RATE`, noting each wagers_locked's scheduled time."""

    def __init__(self, producer: TableEventProducer, raws: Sequence[dict[str, Any]], clock: Clock):
        super().__init__(daemon=True)
        self.producer, self.raws, self.clock = producer, raws, clock
        self.lines = [workload.to_line(raw) for raw in raws]
        self.achieved = 0.0
        self.done = threading.Event()
        self.finished: Callable[[], None] = lambda: None  # called once all is sent and flushed

    def run(self) -> None:
        interval, started = 1.0 / RATE, time.perf_counter()
        self.clock.counted_from = started + WARMUP_S
        for index, (raw, line) in enumerate(zip(self.raws, self.lines, strict=True)):
            scheduled = started + index * interval
            pause = scheduled - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            self.producer.send(line)
            if raw["type"] == "wagers_locked":
                self.clock.due[(str(raw["table_id"]), str(raw["round_id"]))] = scheduled
                if scheduled >= self.clock.counted_from:
                    self.clock.late_ms.append((time.perf_counter() - scheduled) * 1000)
        self.achieved = len(self.lines) / (time.perf_counter() - started)
        self.producer.flush(60.0)
        self.finished()
        self.done.set()


def reader(bootstrap: str, *topics: str) -> Consumer:
    """A group-less ``read_committed`` reader of ``topics`` from their current ends."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"jackpot-reader-bench-{uuid.uuid4()}",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "fetch.wait.max.ms": READER_FETCH_WAIT_MS,
            "log_level": 3,
        }
    )
    where = [TopicPartition(topic, p) for topic in topics for p in range(PARTITIONS)]
    for tp in where:
        tp.offset = consumer.get_watermark_offsets(tp, 10.0, cached=False)[1]
    consumer.assign(where)
    return consumer


def take(consumer: Consumer) -> list[Message]:
    """What the reader has: the first record as soon as it comes (within 5 ms) and what is
    queued with it (``consume`` alone would wait all of its timeout for a short batch)."""
    first = consumer.poll(0.005)
    return [] if first is None else [first, *consumer.consume(999, 0)]


def read_meter_events(consumer: Consumer, clock: Clock, pacer: Pacer, claims: str) -> None:
    """The worker's round: its contributions on the events topic; the records of ``claims`` (the
    meter-claims topic) mark when the round's claims were produced and seen."""
    read_until_done(consumer, clock, pacer, partial(meter_record, clock, claims))


def read_relayed(consumer: Consumer, clock: Clock, pacer: Pacer) -> None:
    """The relay's round (`bench.kafka_relay`): its ``wagers_locked`` copied to the relay's
    output topic, one record (``clock.expected`` holds 1 per round: `relayed`)."""
    read_until_done(consumer, clock, pacer, partial(relayed_record, clock))


def relayed(expected: Counter[Round]) -> Counter[Round]:
    """The rounds the worker's contender counts (those with contributions), one record each."""
    return Counter({where: 1 for where, count in expected.items() if count})


def read_until_done(
    consumer: Consumer, clock: Clock, pacer: Pacer, timed: Callable[[Message, float], None]
) -> None:
    """Each record to ``timed`` (with when it was read, `time.perf_counter`) until the pacer is
    done and `DRAIN_S` passed (or every round was seen)."""
    drain_until: float | None = None
    while drain_until is None or time.perf_counter() < drain_until:
        for message in take(consumer):
            if message.error() is None:
                timed(message, time.perf_counter())
        if drain_until is None and pacer.done.is_set():
            drain_until = time.perf_counter() + DRAIN_S
        if pacer.done.is_set() and clock.seen == clock.expected:
            return


def meter_record(clock: Clock, claims: str, message: Message, now: float) -> None:
    """A record of the worker's deployment: a contribution claim or a meter event (else none)."""
    if message.topic() == claims:
        op = json.loads(message.value() or b"{}")
        if op.get("kind") == "contribution":
            where = (str(op["table_id"]), str(op["claim"]["round_id"]))
            clock.claim(where, message.timestamp()[1] / 1000, time.time())
        return
    dedupe = as_bytes(dict(message.headers() or ()).get(DEDUPE_HEADER) or b"")
    if b"@" not in dedupe or dedupe.startswith(b"rejected@"):
        return  # not a meter event
    event = decode(message.value() or b"")
    if isinstance(event, ContributionRecorded):
        clock.read((event.table_id, event.round_id), now, message.timestamp()[1] / 1000)


def relayed_record(clock: Clock, message: Message, now: float) -> None:
    """A record the relay copied: a ``wagers_locked`` ends its round."""
    raw = json.loads(message.value() or b"{}")
    if raw.get("type") == "wagers_locked":
        where = (str(raw["table_id"]), str(raw["round_id"]))
        if clock.expected[where]:  # a round without contributions is not counted (`relayed`):
            clock.read(where, now, message.timestamp()[1] / 1000)  # seen, the reader waited
            # `DRAIN_S` out after every relay run
