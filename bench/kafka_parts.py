"""Row "kafka": the scale-out engine end to end, one worker, vs a plain consume-and-produce loop.

Subject: ``python -m streams.kafka_worker`` (ONE worker process) over a freshly provisioned prefix
(6 table-events partitions, the configuration recorded and every meter seeded) whose table-events
topic already holds N simulated table events (`bench.workload`, produced with the engine's own
idempotent producer, `streams.kafka_ingest.TableEventProducer`). Done when the events topic holds
every output the embedded engine writes for the same input (ConfigActivated, the meter seeds,
accepted table events, contributions, fixed and envy awards, hits, reversals: the same records,
counted by the sum of the topic's high watermarks, polled every 20 ms).

Reference: a plain confluent-kafka loop, also a child process (``python -m bench.kafka
plain-loop``), that consumes the same table-events topic in its own consumer group and produces
every record unchanged (same key) to ``<prefix>.plain-out``, with the engine's producer settings
(`streams.kafka_sink.producer_config`: idempotent, ``acks=all``); like the worker it waits for
every acknowledgement of a batch (up to 500 records) and then commits, batch by batch.

Both are timed by the same poller from the moment the first output record appears on their
output topic until the last one does (``steady``), so the child's start, imports and consumer-group
join (the broker delays a new group's first rebalance by up to 3 s) are left out of the rate;
the wall time from spawning the child is reported too (``*_wall_s`` in the row's details).
The row is skipped (no error) when ``KAFKA_BOOTSTRAP`` is unset or the broker does not answer.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from bench import workload
from bench.common import EXAMPLE_CONFIG, REPO, Figure, Goal, Mode, Paired, Row, Settings, rate_row
from streams.engine import EmbeddedController
from streams.kafka_cmd import activate
from streams.kafka_ingest import TableEventProducer
from streams.kafka_sink import producer_config
from streams.kafka_topics import Layout, TopicNames, TopicSpec, provision, topic_specs
from streams.memory import MemoryLog

GOAL = Goal(text=">= 1/2 of the plain consume-and-produce loop", ratio_at_least=0.5)
#: Table events per repetition, by mode (`bench.common.Settings` has no Kafka size yet).
EVENTS: dict[Mode, int] = {"tiny": 300, "quick": 1_500, "default": 5_000, "full": 20_000}
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


def expected_outputs(text: str, raws: Sequence[dict[str, Any]]) -> int:
    """Records the embedded engine logs for the configuration and ``raws``: what the events
    topic holds once the worker is done (the same events, one record each)."""
    log = MemoryLog()
    controller = EmbeddedController(log, MemoryLog())
    controller.start(text, str(EXAMPLE_CONFIG))
    controller.submit(raws)
    return log.head()


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

    def span(self, topic: str, before: Sequence[int], after: Sequence[int]) -> float:
        """Seconds from the first new record's timestamp to the last one's."""
        firsts, lasts = [], []
        for partition, (low, high) in enumerate(zip(before, after, strict=True)):
            if high > low:
                firsts.append(self.timestamp(topic, partition, low))
                lasts.append(self.timestamp(topic, partition, high - 1))
        return max(lasts) - min(firsts)

    def close(self) -> None:
        """Leave nothing open."""
        self._consumer.close()


@dataclass(frozen=True, slots=True)
class Timing:
    """One timed child: wall time from spawn, and from its first output record to its last
    (the records' own timestamps, so the poll interval does not blur it)."""

    wall: float
    steady: float


def time_child(
    command: list[str], log_path: Path, marks: Watermarks, topic: str, *, target: int
) -> Timing:
    """Spawn ``command``, poll ``topic`` until it holds ``target`` more records than at spawn,
    then stop the child (SIGTERM; not timed)."""
    before = marks.highs(topic, PARTITIONS)
    with log_path.open("wb") as log:
        started = time.perf_counter()
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and modules
            command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        while True:
            after = marks.highs(topic, PARTITIONS)
            count = sum(after) - sum(before)
            now = time.perf_counter()
            if count >= target:
                wall = now - started
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
    return Timing(wall=wall, steady=max(marks.span(topic, before, after), MIN_SPAN_S))


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


class KafkaRun:
    """Runs the subject and the reference on the same deployments, alternating their order."""

    def __init__(self, bootstrap: str, lines: list[bytes], expected: int, folder: Path) -> None:
        self.bootstrap, self.lines, self.expected, self.folder = bootstrap, lines, expected, folder
        self.walls: dict[str, list[float]] = {"worker": [], "plain": []}
        self.marks = Watermarks(bootstrap)

    def worker(self, deployment: Deployment, index: int) -> float:
        """Seconds from the worker's first output to the last (wall time kept aside)."""
        names = deployment.names
        command = [sys.executable, "-m", "streams.kafka_worker", "--bootstrap", self.bootstrap]
        command += ["--prefix", names.prefix, "--config", str(EXAMPLE_CONFIG)]
        command += ["--data-dir", str(self.folder / "data"), "--loglevel", "warning"]
        log = self.folder / f"worker-{index}.log"
        # the config record is on the topic already: the worker writes the rest
        timing = time_child(command, log, self.marks, names.events, target=self.expected - 1)
        self.walls["worker"].append(timing.wall)
        return timing.steady

    def plain(self, deployment: Deployment, index: int) -> float:
        """Seconds from the plain loop's first output to the last (wall time kept aside)."""
        names = deployment.names
        command = [sys.executable, "-m", "bench.kafka", "plain-loop", "--bootstrap"]
        command += [self.bootstrap, "--source", names.table_events, "--target"]
        command += [deployment.plain_out, "--count", str(len(self.lines))]
        command += ["--group", f"{names.prefix}-plain"]
        log = self.folder / f"plain-{index}.log"
        timing = time_child(command, log, self.marks, deployment.plain_out, target=len(self.lines))
        self.walls["plain"].append(timing.wall)
        return timing.steady

    def run(self, repeats: int) -> Paired:
        """``repeats`` repetitions, each on a fresh prefix; the reference first on even ones."""
        subject: list[float] = []
        reference: list[float] = []
        for index in range(repeats):
            deployment = Deployment(self.bootstrap, self.lines)
            try:
                if index % 2 == 0:
                    reference.append(self.plain(deployment, index))
                    subject.append(self.worker(deployment, index))
                else:
                    subject.append(self.worker(deployment, index))
                    reference.append(self.plain(deployment, index))
            finally:
                deployment.delete()
        return Paired(tuple(subject), tuple(reference))

    def close(self) -> None:
        """Release the poller."""
        self.marks.close()


def run_rows(settings: Settings) -> list[Row]:
    """The Kafka row; none (and a note on stderr) when no broker answers."""
    bootstrap, reason = bootstrap_or_reason()
    if bootstrap is None:
        print(f"bench: skipped kafka: {reason}", file=sys.stderr)
        return []
    text, config = workload.example_floor()
    raws = workload.events(config, EVENTS[settings.mode], settings.seed)
    lines = [workload.to_line(raw) for raw in raws]
    expected = expected_outputs(text, raws)
    with tempfile.TemporaryDirectory(prefix="bench-kafka-") as folder:
        run = KafkaRun(bootstrap, lines, expected, Path(folder))
        try:
            times = run.run(settings.repeats)
        finally:
            run.close()
    extra: dict[str, Figure] = {
        "events": len(lines),
        "outputs_per_run": expected,
        "table_partitions": TABLE_PARTITIONS,
        "bootstrap": bootstrap,
        "worker_wall_s": round(sorted(run.walls["worker"])[len(run.walls["worker"]) // 2], 3),
        "plain_wall_s": round(sorted(run.walls["plain"])[len(run.walls["plain"]) // 2], 3),
        "worker_wall_samples": ",".join(f"{s:.3f}" for s in run.walls["worker"]),
        "plain_wall_samples": ",".join(f"{s:.3f}" for s in run.walls["plain"]),
    }
    return [
        rate_row(
            name="kafka: end to end, one worker",
            count=len(lines),
            times=times,
            reference_name="plain consume-and-produce loop",
            goal=GOAL,
            notes=(
                "Kafka engine: end to end per worker, table events in to meter events out "
                f"({expected} output records for {len(lines)} inputs), one worker process, "
                "vs a plain confluent-kafka consume-and-produce loop on the same broker and "
                "topics (acks=all, idempotent, flush+commit per 500); rates from first to last "
                "output record, child start-up and group join excluded (wall times in details)"
            ),
            extra=extra,
        )
    ]


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
    """``python -m bench.kafka plain-loop ...``: the reference loop as a child process."""
    parser = argparse.ArgumentParser(prog="python -m bench.kafka")
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
