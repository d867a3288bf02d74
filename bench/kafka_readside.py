"""Row "kafka-readside": the faust read side (`streams.scaleout.readside`) against a plain
confluent-kafka consumer running the same aggregation on the same topic, in the same run.

Input: a fresh prefix whose events topic (6 partitions) holds the records the Kafka engine writes
for N simulated table events (`bench.kafka_signage.engine_records`), produced once and read by
every repetition, each in a group of its own.

Subject: ``jackpot kafka readside`` as a child process (faust-streaming 0.15 on aiokafka,
``read_committed``): per record the agent decodes the counted ones, applies them to the hour and
gaming-day tallies (a faust Table, so each applied record also writes its two changelog records).
Reference: a plain confluent-kafka consumer (``read_committed``, batches of 2,000) running the
same step (`streams.scaleout.readside.fold.Aggregator`, and a `Surveillance` review whenever an
hour closes, as the agent does) on a dict, with no changelog.

Both are timed in steady state, from the first record taken to the last (the process start, the
group join and faust's table recovery are left out: `startup_s` in the details), sampled from the
subject's ``jackpot_readside_records_total`` every 20 ms; the seconds are scaled to all records.
The details also carry the plain consume loop without the aggregation. Skipped (no error) when
no broker answers (``KAFKA_BOOTSTRAP``).
"""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import sys
import time
import urllib.request
import uuid

from confluent_kafka import Consumer, KafkaException
from confluent_kafka.admin import AdminClient

from bench import workload
from bench.common import REPO, Figure, Goal, Mode, Paired, Row, Settings, rate_row
from bench.kafka_parts import bootstrap_or_reason
from bench.kafka_signage import engine_records
from streams.adapters.kafka.security import client_settings
from streams.adapters.kafka.sink import OutputSink
from streams.adapters.kafka.topics import Layout, TopicNames, provision, topic_specs
from streams.scaleout.readside.fold import Aggregator, Surveillance

GOAL = Goal(text="reported (the read side is not on the money path)")
EVENTS: dict[Mode, int] = {"tiny": 300, "quick": 5_000, "default": 20_000, "full": 100_000}
PARTITIONS = 6
TIMEOUT_S = 300.0
_COUNT = re.compile(r'^jackpot_readside_records_total\{outcome="\w+"\} (\S+)$', re.MULTILINE)


class ReadSideRun:
    """One prefix, filled once; the subject and the reference read it alternately."""

    def __init__(self, bootstrap: str, raws: list[dict[str, object]]) -> None:
        self.bootstrap = bootstrap
        self.names = TopicNames(f"bench{uuid.uuid4().hex[:10]}")
        specs = topic_specs(self.names, Layout(6, 6, PARTITIONS))
        provision(bootstrap, [s for s in specs if s.name == self.names.events])
        outputs, _state = engine_records(self.names, raws)
        sink = OutputSink(bootstrap, "bench-readside-fill")
        sink.produce(outputs)
        sink.close(timeout=120.0)
        self.records = len(outputs)
        self.groups: list[str] = []
        self.startups: list[float] = []

    def group(self) -> str:
        self.groups.append(f"{self.names.prefix}-readside-{len(self.groups)}")
        return self.groups[-1]

    def faust(self) -> float:
        """Steady-state seconds of the faust read side for every record (module docstring)."""
        port = _free_port()
        command = [sys.executable, "-m", "streams.cli", "kafka", "readside", "--tick", "60"]
        command += ["--bootstrap", self.bootstrap, "--prefix", self.names.prefix]
        command += ["--group", self.group(), "--metrics-port", str(port)]
        started = time.perf_counter()
        child = subprocess.Popen(  # noqa: S603 # our own CLI
            command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            first, first_count, count = 0.0, 0, 0
            while count < self.records:
                if time.perf_counter() - started > TIMEOUT_S or child.poll() is not None:
                    msg = f"the read side took {count} of {self.records} records"
                    raise RuntimeError(msg)
                time.sleep(0.02)
                count = _taken(port)
                if count and not first:
                    first, first_count = time.perf_counter(), count
            last = time.perf_counter()
            self.startups.append(first - started)
        finally:
            child.terminate()
            child.wait(timeout=30)
        return (last - first) * self.records / max(1, self.records - first_count)

    def plain(self, *, aggregate: bool = True) -> float:
        """Steady-state seconds of a plain consumer (with the same aggregation step)."""
        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                **client_settings(),
                "group.id": self.group(),
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "isolation.level": "read_committed",
                "log_level": 3,
            }
        )
        aggregator, surveillance = Aggregator({}), Surveillance()
        consumer.subscribe([self.names.events])
        try:
            count, first, first_count, deadline = 0, 0.0, 0, time.perf_counter() + TIMEOUT_S
            while count < self.records:
                for message in consumer.consume(num_messages=2_000, timeout=0.2):
                    if message.error() is None:
                        if aggregate:
                            where = (message.partition() or 0, message.offset() or 0)
                            outcome = aggregator.take(message.value(), *where)
                            if outcome == "applied" and surveillance.due(aggregator):
                                surveillance.review(aggregator)  # as the agent does
                        count += 1
                if count and not first:
                    first, first_count = time.perf_counter(), count
                if time.perf_counter() > deadline:
                    msg = f"the plain loop read {count} of {self.records} in {TIMEOUT_S}s"
                    raise RuntimeError(msg)
            last = time.perf_counter()
        finally:
            consumer.close()
        return (last - first) * self.records / max(1, self.records - first_count)

    def delete(self) -> None:
        """Drop the prefix's topics and the faust apps' changelogs."""
        admin = AdminClient(
            {"bootstrap.servers": self.bootstrap, **client_settings(), "log_level": 0}
        )
        topics = [self.names.events, f"{self.names.prefix}.readside-alerts"]
        topics += [f"{group}-aggregates-changelog" for group in self.groups]
        existing = admin.list_topics(timeout=30).topics
        gone = [t for t in topics if t in existing]
        for future in admin.delete_topics(gone, operation_timeout=30).values() if gone else ():
            with contextlib.suppress(KafkaException):  # already gone: nothing to clean
                future.result()


def _taken(port: int) -> int:
    """Records the read side took so far (0 while its endpoint does not answer)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as reply:
            text = reply.read().decode()
    except OSError:
        return 0
    return sum(int(float(v)) for v in _COUNT.findall(text))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def run_rows(settings: Settings) -> list[Row]:
    """The read-side row; none (and a note on stderr) without a broker."""
    bootstrap, why = bootstrap_or_reason()
    if bootstrap is None:
        print(f"bench: skipped kafka-readside: {why}", file=sys.stderr)
        return []
    _, config = workload.example_floor()
    raws = workload.events(config, EVENTS[settings.mode], settings.seed)
    run = ReadSideRun(bootstrap, raws)
    try:
        subject, reference = [], []
        for index in range(settings.repeats):
            if index % 2 == 0:
                reference.append(run.plain())
                subject.append(run.faust())
            else:
                subject.append(run.faust())
                reference.append(run.plain())
        consume_only = run.plain(aggregate=False)
    finally:
        run.delete()
    extra: dict[str, Figure] = {
        "table_events": len(raws),
        "records": run.records,
        "partitions": PARTITIONS,
        "consume_only_records_per_s": round(run.records / consume_only),
        "startup_s": round(sorted(run.startups)[len(run.startups) // 2], 2),
        "bootstrap": bootstrap,
    }
    return [
        rate_row(
            name="kafka-readside: faust aggregates",
            count=run.records,
            times=Paired(tuple(subject), tuple(reference)),
            reference_name="plain confluent-kafka consumer, same step",
            goal=GOAL,
            notes=(
                "jackpot kafka readside (faust agent, read_committed, table changelog writes) vs "
                "a plain read_committed consumer running the same Aggregator step on a dict; "
                "steady state, first record to last"
            ),
            extra=extra,
        )
    ]
