"""The pieces of the "kafka" row (`bench.kafka`): the broker probe, a topic's progress read
without joining a group, one timed child process, a provisioned deployment, and the reference
loop, which runs as a child process of its own:
``python -m bench.kafka_parts plain-loop --bootstrap B --source T --target T2 --count N --group G``.

The reference: a plain confluent-kafka loop that consumes the table-events topic in its own
consumer group and produces every record unchanged (same key) to ``<prefix>.plain-out``, with the
engine's producer settings (`streams.adapters.kafka.sink.producer_config`: idempotent,
``acks=all``); like
the worker it waits for every acknowledgement of a batch (up to 500 records) and then commits,
batch by batch.
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

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from bench.common import EXAMPLE_CONFIG, REPO
from streams.adapters.kafka.sink import producer_config
from streams.adapters.kafka.topics import Layout, TopicNames, TopicSpec, provision, topic_specs
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


class Watermarks:
    """A topic's offsets and record timestamps, read without joining a group."""

    def __init__(self, bootstrap: str) -> None:
        self._consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"bench-watermarks-{uuid.uuid4()}",
                "enable.auto.commit": False,
                "log_level": 3,
            }
        )

    def highs(self, topic: str, partitions: int) -> list[int]:
        """Each partition's high watermark, as the broker reports now."""
        return [
            self._consumer.get_watermark_offsets(
                TopicPartition(topic, partition), timeout=10.0, cached=False
            )[1]
            for partition in range(partitions)
        ]

    def timestamp(self, topic: str, partition: int, offset: int) -> float:
        """The CreateTime (s) of one record: stamped by the producer when it produced it."""
        self._consumer.assign([TopicPartition(topic, partition, offset)])
        deadline = time.monotonic() + 30.0
        while time.monotonic() < deadline:
            message = self._consumer.poll(0.5)
            if message is not None and message.error() is None and message.offset() == offset:
                return message.timestamp()[1] / 1000.0
        msg = f"{topic}[{partition}]@{offset}: not readable"
        raise RuntimeError(msg)

    def span(self, topic: str, before: Sequence[int], after: Sequence[int]) -> tuple[float, float]:
        """The first new record's timestamp and the last one's (s since the epoch)."""
        firsts, lasts = [], []
        for partition, (low, high) in enumerate(zip(before, after, strict=True)):
            if high > low:
                firsts.append(self.timestamp(topic, partition, low))
                lasts.append(self.timestamp(topic, partition, high - 1))
        return min(firsts), max(lasts)

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


def time_child(
    command: list[str],
    log_path: Path,
    marks: Watermarks,
    topic: str,
    *,
    target: int,
    cwd: Path = REPO,
) -> Timing:
    """Spawn ``command`` in ``cwd``, poll ``topic`` until it holds ``target`` more records than
    at spawn, then stop the child (SIGTERM; not timed)."""
    before = marks.highs(topic, PARTITIONS)
    cpu_at_first: float | None = None
    with log_path.open("wb") as log:
        started, spawned = time.perf_counter(), time.time()
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and modules
            command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        while True:
            after = marks.highs(topic, PARTITIONS)
            count = sum(after) - sum(before)
            now = time.perf_counter()
            if count and cpu_at_first is None:
                cpu_at_first = cpu_seconds(process.pid)
            if count >= target:
                wall = now - started
                cpu_at_last = cpu_seconds(process.pid)
                break
            if now - started > DONE_TIMEOUT_S:
                msg = (
                    f"{topic}: {count} of {target} records after {DONE_TIMEOUT_S}s; see {log_path}"
                )
                raise RuntimeError(msg)
            if process.poll() not in (None, 0):
                tail = log_path.read_text(errors="replace")[-2000:]
                msg = f"{command[2]} exited with {process.returncode}:\n{tail}"
                raise RuntimeError(msg)
            time.sleep(POLL_S)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)
    first, last = marks.span(topic, before, after)
    cpu = None
    if cpu_at_first is not None and cpu_at_last is not None:
        cpu = cpu_at_last - cpu_at_first
    return Timing(wall=wall, startup=first - spawned, steady=max(last - first, MIN_SPAN_S), cpu=cpu)


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) process ``pid`` used so far; None where /proc is missing.

    On a shared machine CPU time per event is steadier than wall time: a neighbour's load
    stretches the wall clock of a runnable process, not the CPU it uses.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Deployment:
    """One repetition's prefix: topics provisioned, meters seeded, the input produced."""

    def __init__(self, bootstrap: str, lines: Sequence[bytes]) -> None:
        self.bootstrap = bootstrap
        self.names = TopicNames(f"bench{uuid.uuid4().hex[:10]}")
        layout = Layout(TABLE_PARTITIONS, 6, 6)
        self.specs: tuple[TopicSpec, ...] = (
            *topic_specs(self.names, layout),
            TopicSpec(self.plain_out, 6, topic_specs(self.names, layout)[0].config),
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


def plain_loop(bootstrap: str, source: str, target: str, count: int, group: str) -> int:
    """The reference: consume ``count`` records of ``source`` and produce each unchanged to
    ``target``; per batch, wait for every acknowledgement, then commit."""
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
    producer = Producer(producer_config(bootstrap, "bench-plain-loop"))
    consumer.subscribe([source])
    done = 0
    try:
        while done < count:
            batch = consumer.consume(num_messages=PLAIN_BATCH, timeout=0.1)
            records = [m for m in batch if m.error() is None]
            for message in records:
                while True:
                    try:
                        producer.produce(target, key=message.key(), value=message.value())
                        break
                    except BufferError:
                        producer.poll(0.01)
            if records:
                if producer.flush(60.0):
                    return 1
                consumer.commit(asynchronous=False)
                done += len(records)
    finally:
        consumer.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.kafka_parts plain-loop ...``: the reference loop as a child process."""
    parser = argparse.ArgumentParser(prog="python -m bench.kafka_parts")
    parser.add_argument("command", choices=("plain-loop",))
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--group", required=True)
    args = parser.parse_args(argv)
    return plain_loop(args.bootstrap, args.source, args.target, args.count, args.group)


if __name__ == "__main__":
    raise SystemExit(main())
