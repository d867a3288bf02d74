"""``jackpot kafka signage``: the Kafka engine's live meters into the Redis read model for signs.

::

    jackpot kafka signage --prefix floor1 --config FLOOR.toml --redis redis://127.0.0.1:6379/0

A plain confluent-kafka consumer (group ``<prefix>-signage``) reads ``<prefix>.events``, folds the
meter events per meter (`streams.kafka_signage_fold`) and publishes each changed meter with its
``seq`` through the embedded engine's own signage feed (`streams.signage_feed`), so a hash holds
the same fields on both engines and the read model's seq guard keeps a sign from going backwards.

Crash-only. The events topic is the source of truth and the fold lives in memory: on start, and
for every partition the group hands it, the projector reads from the partition's beginning,
holding publication until it has reached the end the partition had when assigned, then publishes
every meter (Redis may hold older values, or nothing). Committed offsets are never read back: they
are committed only while Redis holds every folded meter, so the group's lag is what signs do not
show yet. A SIGKILL therefore loses nothing and a restart republishes at most values Redis has.

While Redis is down the fold goes on, the projector is degraded (a log line, the gauge
``jackpot_kafka_signage_degraded``) and nothing is committed; when Redis answers again every meter
is republished. A Redis that restarted empty between two batches raises nothing: a read-back of
one meter per second finds it and triggers the same republication.

Known limit: every start refolds the whole events topic (meter events are decoded, other records
only looked at); a snapshot of the fold with its offsets would shorten that.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Message, TopicPartition

from controller.config import load_floor_config
from controller.errors import JackpotError
from streams.kafka_codec import DEDUPE_HEADER
from streams.kafka_read import as_bytes
from streams.kafka_security import activate_from, add_security_arguments, client_settings
from streams.kafka_settings import default_bootstrap
from streams.kafka_signage_fold import Projector, Record, SignageMetrics
from streams.kafka_topics import TopicNames
from streams.redis_model import RedisReadModel, add_redis_arguments, password_from, redact

logger = logging.getLogger(__name__)
BATCH = 2_000
POLL_S = 0.2
TICK_S = 1.0


@dataclass(frozen=True, slots=True, kw_only=True)
class SignageSettings:
    """What a projector needs (every field has a command-line option)."""

    bootstrap: str
    prefix: str
    config_path: Path
    redis_url: str
    redis_prefix: str = "jackpot"
    redis_password: str | None = None
    group: str = ""
    metrics_port: int = 0
    resync_every: float = 60.0


class Partitions:
    """The consumer's view of its partitions: next offset folded, and the end to catch up to."""

    def __init__(
        self, consumer: Consumer, topic: str, projector: Projector, *, hold: bool = True
    ) -> None:
        self.consumer, self.topic, self.projector = consumer, topic, projector
        self.hold = hold
        self.next: dict[int, int] = {}
        self.ends: dict[int, int] = {}
        self.committed: dict[int, int] = {}

    def on_assign(self, consumer: Consumer, assigned: list[TopicPartition]) -> None:
        """Keep folding the partitions it had; read new ones from their beginning (holding
        publication until their end as of now); forget the ones it lost."""
        mine = {tp.partition for tp in assigned}
        lost = set(self.next) - mine
        self.projector.fold.drop_partitions(lost)
        for partition in lost:
            self.next.pop(partition, None)
            self.ends.pop(partition, None)
        for tp in assigned:
            tp.offset = self.next.get(tp.partition, OFFSET_BEGINNING)
            if tp.partition not in self.next:
                high = _high(consumer, tp)
                self.next[tp.partition] = 0
                if high > 0:
                    self.ends[tp.partition] = high
        self.projector.holding = self.hold and bool(self.ends)
        consumer.assign(assigned)
        logger.info("signage: assigned %s, catching up to %s", sorted(mine), self.ends)

    def on_revoke(self, consumer: Consumer, revoked: list[TopicPartition]) -> None:
        """Nothing to hand over: the fold is kept in case the partitions come back."""

    def advance(self, folded: dict[int, int]) -> None:
        """Note what was folded (partition: next offset); release the hold once every new
        partition reached its end."""
        self.next.update(folded)
        for partition, end in list(self.ends.items()):
            if self.next.get(partition, 0) >= end:
                del self.ends[partition]
        if self.projector.holding and not self.ends:
            logger.info("signage: caught up with %s; publishing every meter", self.topic)
            self.projector.release()

    def commit(self) -> None:
        """Commit what Redis reflects (only called while the projector is clean)."""
        offsets = {p: n for p, n in self.next.items() if n > 0 and self.committed.get(p) != n}
        if not offsets:
            return
        try:
            parts = [TopicPartition(self.topic, p, n) for p, n in offsets.items()]
            self.consumer.commit(offsets=parts, asynchronous=True)
        except KafkaException as exc:  # informational only: a later commit carries it
            logger.info("signage: commit failed (%s); offsets are not needed to recover", exc)
            return
        self.committed.update(offsets)


def _high(consumer: Consumer, tp: TopicPartition) -> int:
    """The partition's end now (0 if the broker does not say: then nothing is held back)."""
    try:
        return int(consumer.get_watermark_offsets(tp, timeout=10.0, cached=False)[1])
    except KafkaException as exc:
        logger.warning("signage: %s[%d]: no end offset (%s)", tp.topic, tp.partition, exc)
        return 0


@dataclass
class Batch:
    """One consume call: the records that may be meter events, the count of the others, and the
    next offset of each partition it read."""

    records: list[Record]
    others: int
    next: dict[int, int]


def batch_of(messages: list[Message]) -> Batch:
    """Sort a consume call's records on their raw bytes: only a record whose ``dedupe_id`` is its
    key then "@" may be a meter event, and only those are decoded (most records are table events
    and awards). Errors are logged (librdkafka retries) unless fatal."""
    batch = Batch([], 0, {})
    for message in messages:
        error = message.error()
        if error is not None:
            if error.fatal():
                raise KafkaException(error)
            logger.warning("signage: consumer: %s", error)
            continue
        partition, offset = message.partition() or 0, message.offset() or 0
        batch.next[partition] = offset + 1
        key, dedupe = as_bytes(message.key()), _dedupe_id(message)
        if dedupe.startswith(key) and dedupe[len(key) : len(key) + 1] == b"@":
            record = Record(
                partition, offset, key.decode(), dedupe.decode(), message.value() or b""
            )
            batch.records.append(record)
        else:
            batch.others += 1
    return batch


def _dedupe_id(message: Message) -> bytes:
    headers = message.headers() or []
    for name, value in headers.items() if isinstance(headers, dict) else headers:
        if name == DEDUPE_HEADER:
            return as_bytes(value)
    return b""


def consumer_for(settings: SignageSettings) -> Consumer:
    """The projector's consumer: its own group, no auto-commit, committed records only."""
    return Consumer(
        {
            "bootstrap.servers": settings.bootstrap,
            **client_settings(),
            "group.id": settings.group or f"{settings.prefix}-signage",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            # A SIGKILLed projector's partitions move after this long, not librdkafka's 45 s.
            "session.timeout.ms": 6_000,
            "heartbeat.interval.ms": 2_000,
            "log_level": 3,
        }
    )


@dataclass
class Running:
    """A projector wired to its consumer and Redis (`open_projector`; `project` runs it)."""

    consumer: Consumer
    projector: Projector
    parts: Partitions
    model: RedisReadModel

    def close(self) -> None:
        """Leave the group and release Redis (offsets are committed only while clean)."""
        self.consumer.close()
        self.model.close()


def open_projector(settings: SignageSettings, *, hold: bool = True) -> Running:
    """The projector, subscribed. ``hold=False`` publishes while catching up too (a benchmark
    measures the live path on a topic that is already full)."""
    config_text = settings.config_path.read_text(encoding="utf-8")
    config = load_floor_config(config_text, str(settings.config_path))
    model = RedisReadModel(
        settings.redis_url, prefix=settings.redis_prefix, password=settings.redis_password
    )
    metrics = SignageMetrics()
    if settings.metrics_port:
        metrics.serve(settings.metrics_port)
    projector = Projector(model, config.meters, metrics, resync_every=settings.resync_every)
    consumer = consumer_for(settings)
    topic = TopicNames(settings.prefix).events
    parts = Partitions(consumer, topic, projector, hold=hold)
    consumer.subscribe([topic], on_assign=parts.on_assign, on_revoke=parts.on_revoke)
    logger.info("signage: %s -> Redis %s", topic, redact(settings.redis_url))
    return Running(consumer, projector, parts, model)


def project(running: Running, done: Callable[[], bool]) -> None:
    """Consume, fold, publish, and commit what Redis holds, until ``done()``."""
    consumer, projector, parts = running.consumer, running.projector, running.parts
    next_tick = time.monotonic() + TICK_S
    while not done():
        batch = batch_of(consumer.consume(num_messages=BATCH, timeout=POLL_S))
        projector.take(batch.records, others=batch.others)
        parts.advance(batch.next)
        if time.monotonic() >= next_tick:
            projector.tick()
            next_tick = time.monotonic() + TICK_S
        if projector.clean:
            parts.commit()
    projector.tick()
    if projector.clean:
        parts.commit()


def run(settings: SignageSettings, stop: threading.Event | None = None) -> int:
    """Fold and publish until ``stop`` is set (SIGTERM or SIGINT when run from the command line)."""
    stop = stop or threading.Event()
    running = open_projector(settings)
    try:
        project(running, stop.is_set)
    finally:
        running.close()
    return 0


def add_parser(kafka: Any) -> None:
    """Register ``jackpot kafka signage``."""
    parser = kafka.add_parser("signage", help="project live meters from the events topic to Redis")
    parser.add_argument("--bootstrap", default=default_bootstrap(), help="Kafka bootstrap servers")
    parser.add_argument("--prefix", required=True, help="topic prefix (one deployment)")
    add_security_arguments(parser)
    parser.add_argument("--config", required=True, type=Path, help="floor configuration (TOML)")
    add_redis_arguments(parser, "Redis URL (default $REDIS_URL)")
    parser.add_argument("--group", default="", help="consumer group (default <prefix>-signage)")
    parser.add_argument("--metrics-port", type=int, default=0, help="Prometheus port; 0 = off")
    parser.add_argument(
        "--resync-every", type=float, default=60.0, help="seconds between full republications"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Run until SIGTERM or SIGINT; exit 2 if the options or the configuration are refused."""
    if not args.redis:
        print("jackpot kafka signage: --redis (or REDIS_URL) is required", file=sys.stderr)
        return 2
    try:
        activate_from(args)  # Kafka security: every client below takes it (client_settings)
    except JackpotError as exc:
        print(f"jackpot kafka signage: {exc}", file=sys.stderr)
        return 2
    settings = SignageSettings(
        bootstrap=args.bootstrap,
        prefix=args.prefix,
        config_path=args.config,
        redis_url=args.redis,
        redis_prefix=args.redis_prefix,
        redis_password=password_from(args.redis_password_file),
        group=args.group,
        metrics_port=args.metrics_port,
        resync_every=args.resync_every,
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    stop = threading.Event()

    def stopping(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stopping)
    signal.signal(signal.SIGINT, stopping)
    try:
        return run(settings, stop)
    except (JackpotError, OSError) as exc:
        print(f"jackpot kafka signage: {exc}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    """``python -m streams.kafka_signage ...``: the same as ``jackpot kafka signage``."""
    parser = argparse.ArgumentParser(prog="python -m streams.kafka_signage")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["signage", *(sys.argv[1:] if argv is None else argv)])
    result: int = args.handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
