"""``jackpot kafka signage``: the Kafka engine's live meters into the Redis read model for signs.

::

    jackpot kafka signage --prefix floor1 --config FLOOR.toml --redis redis://127.0.0.1:6379/0

A plain confluent-kafka consumer (group ``<prefix>-signage``) reads ``<prefix>.events``, folds the
meter events per meter (`streams.scaleout.signage_fold`) and publishes each changed meter with its
``seq`` through the embedded engine's own signage feed (`streams.embedded.signage_feed`), so a hash
holds
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

Playability (loss of communication) is published by the same process and loop: a liveness watch
(`streams.scaleout.liveness`) reads ``<prefix>.liveness`` and writes each meter's and table's status
to the ``{redis-prefix}:playability`` hash every second
(`streams.adapters.redis.playability_board`), and its
``/metrics`` carries the same liveness gauges as the embedded engine's. ``--liveness faust`` (or
``JACKPOT_KAFKA_LIVENESS=faust``) reads that topic as a faust GlobalTable instead of the plain
consumer (`streams.scaleout.readside.liveness`; same watch, same board, docs/kafka.md).

Known limit: every start refolds the whole events topic (meter events are decoded, other records
only looked at); a snapshot of the fold with its offsets would shorten that.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from confluent_kafka import Consumer

from controller.config.floor import load_floor_config
from controller.model.errors import JackpotError, StoreUnavailable
from streams.adapters.kafka.security import activate_from, add_security_arguments, client_settings
from streams.adapters.kafka.settings import default_bootstrap
from streams.adapters.kafka.topics import TopicNames, partition_counts
from streams.adapters.prometheus.projector import SignageMetrics
from streams.adapters.redis.read_model import (
    RedisReadModel,
    add_redis_arguments,
    password_from,
    redact,
)
from streams.scaleout.liveness import LivenessFeed, LivenessWatch
from streams.scaleout.signage_fold import Projector
from streams.scaleout.signage_read import Partitions, batch_of

logger = logging.getLogger(__name__)
BATCH = 2_000
POLL_S = 0.2
TICK_S = 1.0
#: The liveness watches: the plain consumer, or faust (`streams.scaleout.readside.liveness`).
WATCHES = ("plain", "faust")
WATCH_VARIABLE = "JACKPOT_KAFKA_LIVENESS"


class Liveness(Protocol):
    """What the projector's loop drives: a liveness feed, plain or faust."""

    @property
    def ready(self) -> bool: ...

    def poll(self) -> int: ...

    def tick(self) -> None: ...

    def close(self) -> None: ...


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
    metrics_host: str = "127.0.0.1"
    resync_every: float = 60.0
    liveness: str = "plain"


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
    """A projector wired to its consumer and Redis (`open_projector`; `project` runs it), with
    the liveness watch that publishes playability (`streams.scaleout.liveness`)."""

    consumer: Consumer
    projector: Projector
    parts: Partitions
    model: RedisReadModel
    liveness: Liveness

    def close(self) -> None:
        """Leave the group and release Redis (offsets are committed only while clean)."""
        self.consumer.close()
        self.liveness.close()
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
    projector = Projector(model, config.meters, metrics, resync_every=settings.resync_every)
    names = TopicNames(settings.prefix)
    watch = LivenessWatch(config, model, registry=metrics.registry)
    liveness = open_liveness(settings, watch)
    if settings.metrics_port:
        metrics.serve(settings.metrics_port, settings.metrics_host)
    consumer = consumer_for(settings)
    parts = Partitions(consumer, names.events, projector, hold=hold)
    consumer.subscribe([names.events], on_assign=parts.on_assign, on_revoke=parts.on_revoke)
    logger.info("signage: %s -> Redis %s", names.events, redact(settings.redis_url))
    return Running(consumer, projector, parts, model, liveness)


def open_liveness(settings: SignageSettings, watch: LivenessWatch) -> Liveness:
    """The liveness feed ``settings.liveness`` names, reading ``<prefix>.liveness``; its group
    (never joined by the plain feed, joined by faust's) is ``<group>-liveness``."""
    topic = TopicNames(settings.prefix).liveness
    group = f"{settings.group or f'{settings.prefix}-signage'}-liveness"
    if settings.liveness == "plain":
        return LivenessFeed.open(settings.bootstrap, topic, group, watch)
    from streams.scaleout.readside.liveness import FaustLivenessFeed  # noqa: PLC0415  # faust

    partitions = partition_counts(settings.bootstrap, [topic], timeout=10.0).get(topic)
    if partitions is None:
        msg = f"topic {topic} does not exist: run `jackpot kafka provision`"
        raise StoreUnavailable(msg)
    return FaustLivenessFeed.open(settings.bootstrap, topic, partitions, group, watch)


def project(running: Running, done: Callable[[], bool]) -> None:
    """Consume, fold, publish, and commit what Redis holds, until ``done()``."""
    consumer, projector, parts = running.consumer, running.projector, running.parts
    next_tick = time.monotonic()  # playability is published at once, then every TICK_S
    while not done():
        batch = batch_of(consumer.consume(num_messages=BATCH, timeout=POLL_S))
        projector.take(batch.records, others=batch.others)
        parts.advance(batch.next)
        running.liveness.poll()
        if time.monotonic() >= next_tick:
            projector.tick()
            if running.liveness.ready:  # not before it has read who spoke lately
                running.liveness.tick()
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
        "--metrics-host", default="127.0.0.1", help="metrics address (0.0.0.0 in a container)"
    )
    parser.add_argument(
        "--resync-every", type=float, default=60.0, help="seconds between full republications"
    )
    parser.add_argument(
        "--liveness",
        choices=WATCHES,
        default=os.environ.get(WATCH_VARIABLE) or "plain",
        help=f"the liveness watch: plain consumer or faust GlobalTable (${WATCH_VARIABLE})",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Run until SIGTERM or SIGINT; exit 2 if the options or the configuration are refused."""
    if not args.redis:
        print("jackpot kafka signage: --redis (or REDIS_URL) is required", file=sys.stderr)
        return 2
    if args.liveness not in WATCHES:
        told = f"{WATCH_VARIABLE}={args.liveness!r} is not one of {', '.join(WATCHES)}"
        print(f"jackpot kafka signage: {told}", file=sys.stderr)
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
        metrics_host=args.metrics_host,
        resync_every=args.resync_every,
        liveness=args.liveness,
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
    """``python -m streams.scaleout.signage ...``: the same as ``jackpot kafka signage``."""
    parser = argparse.ArgumentParser(prog="python -m streams.scaleout.signage")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["signage", *(sys.argv[1:] if argv is None else argv)])
    result: int = args.handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
