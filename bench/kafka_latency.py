"""Row "kafka latency": wagers_locked in -> its meter events visible to a ``read_committed``
reader, one worker, at a steady 2,000 events/s.

Subject: one ``python -m streams.scaleout.worker`` process over a fresh prefix (6 table-events
partitions, the configuration recorded and every meter seeded), started and given time to join
its group and restore. A pacing thread produces the simulated floor's events
(`bench.latency.paced_events`: hit hands forced now and then) with the engine's own idempotent
producer (`streams.scaleout.ingest.TableEventProducer`, as devices and ``jackpot kafka ingest``
do) at a steady `RATE`; the main thread reads ``<p>.events`` ``read_committed`` (a group-less
reader assigned at the topic's end, asking the broker to answer a fetch within
`READER_FETCH_WAIT_MS`) and decodes every meter event.

Measured from each ``wagers_locked``'s *scheduled* send time (a sender that falls behind is
charged, no coordinated omission) until every ``ContributionRecorded`` of that round (as many as
the embedded engine records for the same input) has been read: the path crosses both lanes and
two transactions (table-events -> round lane -> meter-claims, committed -> meter lane ->
events, committed). The first `WARMUP_S` of sends are not counted.

The worker runs once per setting in `SETTINGS` (its command-line options; the first is the
worker's defaults), side by side in one run on deployments of their own, so the commit interval
that reaches the goal is reported next to the default's. The row's value is the default's p99;
each setting's p50/p99/max are in the details, and where the time goes: the reader also reads
``<p>.meter-claims`` ``read_committed``, so each round's latency splits into four stages (p50
and p99 of each, by the records' CreateTimes, the last of the round's records each time):
``to_claim`` (send -> the round lane produces its claims: ingest, the worker's fetch, its wait
for the batch in progress, deciding), ``claim_commit`` (-> claims visible: the round lane's
commit, the fetch), ``to_contribution`` (-> the meter lane produces the contributions) and
``contribution_commit`` (-> read: the meter lane's commit, the reader's fetch).

With ``BENCH_KAFKA_BASELINE=<git revision>`` (as the ``kafka`` row, `bench.kafka`) that
revision's worker runs too, with its defaults, right after the current defaults: ``baseline
<commit>`` in the details, measured under the same load.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Message, TopicPartition

from bench import workload
from bench.common import EXAMPLE_CONFIG, REPO, Figure, Goal, Mode, Row, Settings
from bench.kafka import BASELINE_ENV, baseline_tree
from bench.kafka_parts import PARTITIONS, Deployment, bootstrap_or_reason, cpu_seconds
from bench.latency import paced_events, percentile
from controller.model.events import ContributionRecorded
from streams.adapters.kafka.read import as_bytes
from streams.adapters.memory import MemoryLog
from streams.codec import DEDUPE_HEADER, decode
from streams.embedded.engine import EmbeddedController
from streams.scaleout.ingest import TableEventProducer

RATE = 2_000  # events per second
SECONDS: dict[Mode, float] = {"tiny": 3.0, "quick": 6.0, "default": 12.0, "full": 30.0}
WARMUP_S = 2.0  # the first transactions (partitions added, metadata) are slow
READY_TIMEOUT_S = 60.0
DRAIN_S = 5.0  # after the last send, how long the reader waits for the stragglers
READER_FETCH_WAIT_MS = 5
GOAL = Goal(text="p99 < 50 ms (wagers_locked -> meter events read_committed)", at_most=50.0)
#: Worker options per contender: the defaults first (``--commit-interval`` 0.01), then intervals
#: around them, the default's own among them: how far two runs of one setting differ is the
#: run's noise.
SETTINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("defaults", ()),
    ("commit-interval 0", ("--commit-interval", "0")),
    ("commit-interval 0.005", ("--commit-interval", "0.005")),
    ("commit-interval 0.01", ("--commit-interval", "0.01")),
    ("commit-interval 0.02", ("--commit-interval", "0.02")),
    ("commit-interval 0.05", ("--commit-interval", "0.05")),
)
Round = tuple[str, str]
Contender = tuple[str, tuple[str, ...], Path]  # name, worker options, the code's tree
STAGES = ("to_claim", "claim_commit", "to_contribution", "contribution_commit")


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
    epoch: float = field(default_factory=lambda: time.time() - time.perf_counter())

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

    def run(self) -> None:
        interval, started = 1.0 / RATE, time.perf_counter()
        self.clock.counted_from = started + WARMUP_S
        for index, (raw, line) in enumerate(zip(self.raws, self.lines, strict=True)):
            scheduled = started + index * interval
            pause = scheduled - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            if raw["type"] == "wagers_locked":
                self.clock.due[(str(raw["table_id"]), str(raw["round_id"]))] = scheduled
            self.producer.send(line)
        self.achieved = len(self.lines) / (time.perf_counter() - started)
        self.producer.flush(60.0)
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
    """Until the pacer is done and `DRAIN_S` passed (or every round was seen); the records of
    ``claims`` (the meter-claims topic) mark when the round's claims were produced and seen."""
    drain_until: float | None = None
    while drain_until is None or time.perf_counter() < drain_until:
        for message in take(consumer):
            if message.error() is not None:
                continue
            now = time.perf_counter()
            if message.topic() == claims:
                op = json.loads(message.value() or b"{}")
                if op.get("kind") == "contribution":
                    where = (str(op["table_id"]), str(op["claim"]["round_id"]))
                    clock.claim(where, message.timestamp()[1] / 1000, time.time())
                continue
            dedupe = as_bytes(dict(message.headers() or ()).get(DEDUPE_HEADER) or b"")
            if b"@" not in dedupe or dedupe.startswith(b"rejected@"):
                continue  # not a meter event
            event = decode(message.value() or b"")
            if isinstance(event, ContributionRecorded):
                where = (event.table_id, event.round_id)
                clock.read(where, now, message.timestamp()[1] / 1000)
        if drain_until is None and pacer.done.is_set():
            drain_until = time.perf_counter() + DRAIN_S
        if pacer.done.is_set() and clock.seen == clock.expected:
            return


def start_worker(
    bootstrap: str, prefix: str, options: Sequence[str], log: Path, tree: Path = REPO
) -> Any:
    """The worker child (of the code in ``tree``), once its log says both source topics'
    partitions are ready."""
    import subprocess  # noqa: PLC0415 - only this row spawns

    command = [sys.executable, "-m", "streams.scaleout.worker", "--bootstrap", bootstrap]
    command += ["--prefix", prefix, "--config", str(EXAMPLE_CONFIG), "--loglevel", "info"]
    with log.open("wb") as out:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [*command, *options], cwd=tree, stdout=out, stderr=subprocess.STDOUT
        )
    deadline = time.monotonic() + READY_TIMEOUT_S
    while log.read_text(errors="replace").count("ready ") < 1:
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            msg = f"the worker did not get ready: {log.read_text(errors='replace')[-2000:]}"
            raise RuntimeError(msg)
        time.sleep(0.1)
    time.sleep(1.0)  # both topics' partitions assigned and restored (one rebalance)
    return process


@dataclass(frozen=True, slots=True)
class Measured:
    """One setting's run."""

    name: str
    latencies_ms: tuple[float, ...]
    rounds_expected: int
    achieved: float
    cpu_s: float | None  # the worker's CPU time (user + system) while the input was paced
    stages_ms: dict[str, list[float]] = field(default_factory=dict)  # `STAGES`

    def figure(self, fraction: float) -> float:
        """A quantile of the latencies, in ms (NaN when none)."""
        return round(percentile(self.latencies_ms, fraction), 3)


def measure(
    bootstrap: str,
    raws: Sequence[dict[str, Any]],
    expected: Counter[Round],
    folder: Path,
    contender: Contender,
) -> Measured:
    """One worker with ``options`` on a deployment of its own, paced input, latencies read."""
    name, options, tree = contender
    deployment = Deployment(bootstrap, [])
    process = None
    try:
        slug = name.replace(" ", "-")
        log = folder / f"{slug}.log"
        process = start_worker(bootstrap, deployment.names.prefix, options, log, tree)
        clock = Clock(expected)
        consumer = reader(bootstrap, deployment.names.events, deployment.names.meter_claims)
        producer = TableEventProducer(bootstrap, deployment.names, "bench-latency")
        pacer = Pacer(producer, raws, clock)
        cpu_before = cpu_seconds(process.pid)
        try:
            pacer.start()
            read_meter_events(consumer, clock, pacer, deployment.names.meter_claims)
        finally:
            consumer.close()
        cpu_after = cpu_seconds(process.pid)
        cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
        counted = sum(
            1 for w, due in clock.due.items() if due >= clock.counted_from and expected[w]
        )
        latencies = tuple(clock.latencies_ms)
        return Measured(name, latencies, counted, pacer.achieved, cpu, clock.stages_ms)
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)
        deployment.delete()


def baseline(settings: Settings) -> list[Contender]:
    """With ``BENCH_KAFKA_BASELINE=<revision>`` (as `bench.kafka`): that revision's worker with
    its defaults, run right after the current one's defaults (the same load, side by side)."""
    revision = os.environ.get(BASELINE_ENV, "")
    if not revision:
        return []
    commit, tree = baseline_tree(revision, settings.cache_dir)
    return [(f"baseline {commit[:9]}", (), tree)]


def run_rows(settings: Settings) -> list[Row]:
    """The Kafka latency row; none (and a note on stderr) when no broker answers."""
    bootstrap, reason = bootstrap_or_reason()
    if bootstrap is None:
        print(f"bench: skipped kafka latency: {reason}", file=sys.stderr)
        return []
    seconds = SECONDS[settings.mode]
    raws = paced_events(int(RATE * seconds), settings.seed)
    expected = expected_contributions(raws)
    with tempfile.TemporaryDirectory(prefix="bench-kafka-latency-") as folder:
        contenders = [(n, o, REPO) for n, o in SETTINGS[: 1 if settings.mode == "tiny" else None]]
        contenders[1:1] = baseline(settings)
        runs = [
            measure(bootstrap, raws, expected, Path(folder), contender) for contender in contenders
        ]
    extra: dict[str, Figure] = {"rate_target": RATE, "seconds": seconds, "warmup_s": WARMUP_S}
    for run in runs:
        key = run.name.replace(" ", "_").replace(".", "")
        extra[f"{key}_options"] = " ".join(dict(SETTINGS).get(run.name, ())) or "(defaults)"
        extra[f"{key}_rate_achieved"] = round(run.achieved, 1)
        extra[f"{key}_rounds"] = len(run.latencies_ms)
        extra[f"{key}_rounds_expected"] = run.rounds_expected
        extra[f"{key}_p50_ms"] = run.figure(0.5)
        extra[f"{key}_p99_ms"] = run.figure(0.99)
        extra[f"{key}_max_ms"] = round(max(run.latencies_ms, default=float("nan")), 3)
        for stage, gaps in run.stages_ms.items():
            extra[f"{key}_{stage}_p50_ms"] = round(percentile(gaps, 0.5), 1)
            extra[f"{key}_{stage}_p99_ms"] = round(percentile(gaps, 0.99), 1)
        if run.cpu_s is not None:  # steadier than latency on a shared machine
            extra[f"{key}_cpu_us_per_event"] = round(1e6 * run.cpu_s / len(raws))
    default = runs[0]
    summary = "; ".join(f"{r.name}: p50 {r.figure(0.5)} / p99 {r.figure(0.99)} ms" for r in runs)
    notes = (
        f"Kafka engine, one worker, steady {RATE} events/s: wagers_locked scheduled send -> all "
        f"its contributions read read_committed on <p>.events (both lanes, two transactions); "
        f"{summary}"
    )
    return [
        Row(
            name="kafka latency",
            unit="ms",
            value=default.figure(0.99),
            goal=GOAL,
            samples=default.latencies_ms if settings.mode == "tiny" else (),
            notes=notes,
            extra=extra,
        )
    ]
