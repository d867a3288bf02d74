"""The pieces of the "kafka" row (`bench.kafka`): the broker probe, a topic's progress read
without joining a group, one timed child process, a provisioned deployment, and the reference
loop, which runs as a child process of its own:
``python -m bench.kafka_parts plain-loop --bootstrap B --source T --target T2 --count N --group G``.

The references: a plain confluent-kafka loop that consumes the table-events topic in its own
consumer group and produces every record unchanged (same key) to ``<prefix>.plain-out``, with the
engine's producer settings (`streams.adapters.kafka.sink.producer_config`: idempotent,
``acks=all``), batch by batch (up to 500 records, as the worker's ``--batch``): with
``--transactional`` each batch is one transaction holding its records and its consumed offsets
(`streams.adapters.kafka.transactions.transactional_producer`, the worker's producer settings:
the goal's reference); without, it waits for every acknowledgement and then commits.

Progress is read with `Tail` (``read_committed``, counting records, not offsets).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import Consumer, KafkaException, Message, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from bench.common import EXAMPLE_CONFIG, REPO
from bench.kafka_host import Mark, broker_pid, mark, spent
from streams.adapters.kafka.sink import producer_config
from streams.adapters.kafka.topics import (
    Layout,
    TopicNames,
    TopicSpec,
    legacy_changelogs,
    provision,
    topic_specs,
)
from streams.adapters.kafka.transactions import transactional_producer
from streams.cli.kafka import activate
from streams.scaleout.ingest import TableEventProducer

PLAIN_BATCH = 500
POLL_S = 0.02
DONE_TIMEOUT_S = 300.0
PROBE_TIMEOUT_S = 5.0
TABLE_PARTITIONS = 6
PARTITIONS = 6  # events and plain-out
MIN_SPAN_S = 0.001  # timestamps are in ms


def bootstrap_or_reason() -> tuple[str | None, str]:
    """``KAFKA_BOOTSTRAP`` if a broker answers there; else None and why the row is skipped."""
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP", "")
    if not bootstrap:
        return None, "no broker: KAFKA_BOOTSTRAP is unset (start one with scripts/kafka.sh start)"
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    try:
        metadata = admin.list_topics(timeout=PROBE_TIMEOUT_S)
    except KafkaException as exc:
        return None, f"no broker at {bootstrap} ({exc})"
    if not metadata.brokers:
        return None, f"no broker at {bootstrap} (metadata lists no brokers)"
    return bootstrap, ""


class Tail:
    """A topic's new records as a ``read_committed`` reader sees them, counted as they come,
    without joining a group: transaction markers take offsets too, so high watermarks would
    over-count a transactional writer's output; aborted records are not counted either."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self._consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"bench-tail-{uuid.uuid4()}",
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
                "log_level": 3,
            }
        )
        ends = [
            self._consumer.get_watermark_offsets(TopicPartition(topic, p), 10.0, cached=False)[1]
            for p in range(partitions)
        ]
        self._consumer.assign([TopicPartition(topic, p, end) for p, end in enumerate(ends)])
        self.count = 0
        self.first: float | None = None
        self.last: float | None = None

    def poll(self) -> int:
        """Read what arrived; the records counted so far."""
        for message in self._consumer.consume(10_000, POLL_S):
            if message.error() is not None:
                continue
            self.count += 1
            stamp = message.timestamp()[1] / 1000.0  # CreateTime: when the child produced it
            self.first = stamp if self.first is None else min(self.first, stamp)
            self.last = stamp if self.last is None else max(self.last, stamp)
        return self.count

    def close(self) -> None:
        """Leave nothing open."""
        self._consumer.close()


@dataclass(frozen=True, slots=True)
class Timing:
    """One timed child: wall time from spawn to its last output seen, from spawn to its first
    output record (``startup``: imports, group join, table recovery) and from its first output
    record to its last (``steady``; the records' own timestamps, so the poll interval does not
    blur it)."""

    wall: float
    startup: float
    steady: float
    cpu: float | None = None  # CPU seconds (user + system) from the first output seen to the last
    broker_cpu: float | None = None  # the broker's, meanwhile (`bench.kafka_host`)
    runq: float | None = None  # seconds the child's threads waited for a CPU, meanwhile


def time_child(
    command: list[str],
    log_path: Path,
    bootstrap: str,
    topic: str,
    *,
    target: int,
    cwd: Path = REPO,
) -> Timing:
    """Spawn ``command`` in ``cwd``, read ``topic`` (`Tail`) until it holds ``target`` more
    records than at spawn, then stop the child (SIGTERM; not timed)."""
    tail = Tail(bootstrap, topic, PARTITIONS)
    broker, first_mark, last_mark = broker_pid(), None, None
    with log_path.open("wb") as log:
        started, spawned = time.perf_counter(), time.time()
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and modules
            command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        while True:
            count = tail.poll()
            now = time.perf_counter()
            if count and first_mark is None:
                first_mark = mark(process.pid, broker)
            if count >= target:
                wall = now - started
                last_mark = mark(process.pid, broker)
                break
            if now - started > DONE_TIMEOUT_S:
                msg = (
                    f"{topic}: {count} of {target} records after {DONE_TIMEOUT_S}s; see {log_path}"
                )
                raise RuntimeError(msg)
            if process.poll() not in (None, 0):
                text = log_path.read_text(errors="replace")[-2000:]
                msg = f"{command[2]} exited with {process.returncode}:\n{text}"
                raise RuntimeError(msg)
    finally:
        tail.close()
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)
    return _timing(tail, wall, spawned, first_mark, last_mark)


def _timing(
    tail: Tail, wall: float, spawned: float, first: Mark | None, last: Mark | None
) -> Timing:
    """The child's `Timing` from its outputs' stamps and its costs at the first and last."""
    start, end = tail.first or 0.0, tail.last or 0.0
    return Timing(
        wall=wall,
        startup=start - spawned,
        steady=max(end - start, MIN_SPAN_S),
        cpu=spent(first, last, "cpu"),
        broker_cpu=spent(first, last, "broker_cpu"),
        runq=spent(first, last, "runq"),
    )


def two_changelogs(tree: Path) -> bool:
    """Whether the worker of ``tree`` (a baseline revision) keeps its state in the two changelogs
    of before the shared one (`streams.adapters.kafka.topics.legacy_changelogs`)."""
    topics = tree / "streams" / "adapters" / "kafka" / "topics.py"
    return topics.is_file() and "state_changelog" not in topics.read_text("utf-8")


class Deployment:
    """One repetition's prefix: topics provisioned (for the worker of ``tree``), meters seeded,
    the input produced."""

    def __init__(self, bootstrap: str, lines: Sequence[bytes], tree: Path = REPO) -> None:
        self.bootstrap = bootstrap
        self.names = TopicNames(f"bench{uuid.uuid4().hex[:10]}")
        layout = Layout(TABLE_PARTITIONS, 6, 6)
        self.specs: tuple[TopicSpec, ...] = (
            *topic_specs(self.names, layout),
            *(legacy_changelogs(self.names, layout) if two_changelogs(tree) else ()),
            TopicSpec(self.plain_out, 6, topic_specs(self.names, layout)[0].config),
            TopicSpec(f"{self.plain_out}-2", 6, topic_specs(self.names, layout)[0].config),
        )
        created = provision(bootstrap, self.specs)
        activate(bootstrap, self.names, EXAMPLE_CONFIG, first=self.names.events in created)
        producer = TableEventProducer(bootstrap, self.names, "bench-ingest")
        for line in lines:
            producer.send(line)
        producer.flush()

    @property
    def plain_out(self) -> str:
        """The plain loop's output topic."""
        return f"{self.names.prefix}.plain-out"

    def delete(self) -> None:
        """Drop every topic of the prefix (faust's own internal topics included)."""
        admin = AdminClient({"bootstrap.servers": self.bootstrap, "log_level": 0})
        mine = [t for t in admin.list_topics(timeout=10).topics if t.startswith(self.names.prefix)]
        if mine:
            for future in admin.delete_topics(mine, operation_timeout=30).values():
                with contextlib.suppress(KafkaException):  # already gone: nothing to clean
                    future.result()


def plain_loop(
    bootstrap: str, source: str, target: str, count: int, group: str, *, transactional: bool
) -> int:
    """The reference: consume ``count`` records of ``source`` and produce each unchanged to
    ``target``, per batch of up to `PLAIN_BATCH`: transactional, one transaction holding the
    batch's records and its consumed offsets (what the worker does, minus deciding); else wait
    for every acknowledgement, then commit."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "log_level": 3,
        }
    )
    if transactional:
        producer = transactional_producer(bootstrap, f"{group}-tx")
    else:
        producer = Producer(producer_config(bootstrap, "bench-plain-loop"))
    consumer.subscribe([source])
    done = 0
    try:
        while done < count:
            records = [m for m in consumer.consume(PLAIN_BATCH, 0.1) if m.error() is None]
            if not records:
                continue
            if transactional:
                producer.begin_transaction()
            _copy(producer, target, records)
            if transactional:
                offsets = consumer.position(consumer.assignment())
                metadata = consumer.consumer_group_metadata()
                producer.send_offsets_to_transaction(offsets, metadata, 30.0)
                producer.commit_transaction(30.0)
            else:
                if producer.flush(60.0):
                    return 1
                consumer.commit(asynchronous=False)
            done += len(records)
    finally:
        consumer.close()
    return 0


def _copy(producer: Producer, target: str, records: list[Message]) -> None:
    for message in records:
        while True:
            try:
                producer.produce(target, key=message.key(), value=message.value())
                break
            except BufferError:
                producer.poll(0.01)


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.kafka_parts plain-loop ...``: the reference loop as a child process."""
    parser = argparse.ArgumentParser(prog="python -m bench.kafka_parts")
    parser.add_argument("command", choices=("plain-loop",))
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--transactional", action="store_true")
    args = parser.parse_args(argv)
    return plain_loop(
        args.bootstrap,
        args.source,
        args.target,
        args.count,
        args.group,
        transactional=args.transactional,
    )


if __name__ == "__main__":
    raise SystemExit(main())
