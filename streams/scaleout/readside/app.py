"""The read side as a faust-streaming app: the aggregates table fed by the committed events
topic, and a timer that refreshes the metrics and raises contribution-rate alerts.

- **read_committed** (`transport`): the agent never sees a record of an aborted money-path
  transaction.
- **No record skipped.** faust commits past any offset it did not deliver, believing it a
  transaction marker, and sometimes drops a record it fetched; the read side reads each such
  hole first and applies any committed record inside it, in offset order (`gaps`, `order`).
- **At-least-once, idempotent writes.** No offset is committed before the table's changelog
  writes of the records below it are acknowledged (`transport`), so after a crash the state is
  at least as new as the committed offsets: the events redelivered are a suffix of each
  partition, and the aggregates skip every record at or below their key's mark
  (`aggregate.apply`).
- **One owner.** A table's contributions arrive on its meters' partitions, so a process that
  owns some partitions holds part of every table's hour. The alert judges hours only while this
  process owns every partition of the events topic (`Ownership`); otherwise it logs so once,
  sets ``jackpot_readside_owns_every_partition`` to 0 and publishes the page's board marked
  incomplete. The aggregates stay exact either way (each key is written from its own
  partition); the deployment runs one replica (docs/kafka.md, "Read side").
- **Windows.** One plain faust Table (changelog ``<app>-aggregates-changelog``, as many
  partitions as the events topic) keyed ``table|h|hour|partition`` and ``table|d|day|partition``:
  faust's own windowed tables cut windows on the epoch (no gaming day starting 06:00 local) and
  by the Kafka timestamp or a model field; the gaming day and its hours are cut here instead.
  Every key is written from its own source partition, as faust's co-partitioning wants.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NoReturn

import faust

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.lag import CommittedRecords, waiting_partitions
from streams.adapters.kafka.security import active
from streams.adapters.kafka.topics import TopicNames, TopicSpec, provision, readside_specs
from streams.adapters.prometheus.readside import ReadSideMetrics
from streams.adapters.redis.read_model import RedisReadModel
from streams.scaleout.readside.agents import Parts, intake, reviewer, timer
from streams.scaleout.readside.aggregate import DaySpec, Retention
from streams.scaleout.readside.alerts import Band
from streams.scaleout.readside.fold import Aggregator, Surveillance
from streams.scaleout.readside.ownership import Ownership
from streams.scaleout.readside.publish import BoardPublisher
from streams.scaleout.readside.stall import StallWatch, leave
from streams.scaleout.readside.transport import ReadSideApp

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadSideSettings:
    """What the read side needs (each has a ``jackpot kafka readside`` option)."""

    bootstrap: str
    prefix: str
    partitions: int
    spec: DaySpec = field(default_factory=DaySpec)
    band: Band = field(default_factory=Band)
    retention: Retention = field(default_factory=Retention)
    group: str = ""
    tick_s: float = 5.0
    #: exit (for the supervisor) after this long owning partitions with records left untaken
    stall_exit_s: float = 60.0
    metrics_port: int = 0
    metrics_host: str = "127.0.0.1"
    #: where the surveillance page's board goes (`publish`); "" = nowhere
    redis_url: str = ""
    redis_prefix: str = "jackpot"
    redis_password: str | None = None

    @property
    def app_id(self) -> str:
        """The faust app id: the consumer group and the changelog's prefix."""
        return self.group or TopicNames(self.prefix).readside_id

    @property
    def alerts_topic(self) -> str:
        return TopicNames(self.prefix).readside_alerts

    def topics(self) -> tuple[TopicSpec, ...]:
        """The alerts topic and the changelog, as ``jackpot kafka provision`` makes them."""
        return readside_specs(TopicNames(self.prefix), self.partitions, app_id=self.app_id)


@dataclass
class ReadSide:
    """The app and what its agent and timer share."""

    app: Any
    aggregator: Aggregator
    surveillance: Surveillance
    metrics: ReadSideMetrics
    publisher: BoardPublisher | None = None
    hole_reads: CommittedRecords | None = None  # the gap guard's consumer


def build(settings: ReadSideSettings, datadir: str) -> ReadSide:
    """The faust app with its table, agent and timer (`agents`; created inside the loop that
    runs it). Its tables live in memory (restored from the changelog at start): ``datadir``
    holds only faust's own files."""
    app = _app(settings, datadir)
    table = app.Table("aggregates", default=None, partitions=settings.partitions)
    events = app.topic(
        TopicNames(settings.prefix).events, key_serializer="raw", value_serializer="raw"
    )
    alerts = app.topic(
        settings.alerts_topic, partitions=1, key_serializer="raw", value_serializer="raw"
    )
    parts = Parts(
        surveillance=Surveillance(band=settings.band),
        aggregator=Aggregator(table, settings.spec, retention=settings.retention),
        reads=CommittedRecords(settings.bootstrap, settings.app_id),
        stall=StallWatch(settings.stall_exit_s),
        ownership=Ownership(events.get_topic_name(), settings.partitions),
        publisher=_publisher(settings),
    )
    review_now = reviewer(app, parts, alerts)
    intake(app, parts, events, review_now)
    probe = partial(waiting_partitions, settings.bootstrap, settings.app_id, parts.ownership.topic)
    timer(
        app,
        parts,
        review_now,
        tick_s=settings.tick_s,
        stall_exit_s=settings.stall_exit_s,
        probe=probe,
    )
    return ReadSide(
        app, parts.aggregator, parts.surveillance, parts.metrics, parts.publisher, parts.reads
    )


def _app(settings: ReadSideSettings, datadir: str) -> ReadSideApp:
    """The faust app, configured for the read side: json tables in memory, raw topics that are
    provisioned, not declared, and a session timeout short enough for a quick hand-over."""
    return ReadSideApp(
        settings.app_id,
        broker=f"kafka://{settings.bootstrap}",
        broker_credentials=active().faust_credentials(),
        store="memory://",
        datadir=datadir,
        web_enabled=False,
        key_serializer="json",  # the table's keys and values; the topics here are raw
        value_serializer="json",
        topic_partitions=settings.partitions,
        topic_replication_factor=1,
        consumer_auto_offset_reset="earliest",
        table_cleanup_interval=3600.0,
        # its topics are provisioned (`provision_topics`): faust creates none (it would ask the
        # broker to, as it cannot always see an existing one, and the readside role may not)
        topic_allow_declare=False,
        topic_disable_leader=True,  # no on_leader timer: one topic less to provision and grant
        broker_session_timeout=6.0,
        broker_heartbeat_interval=2.0,
    )


def _publisher(settings: ReadSideSettings) -> BoardPublisher | None:
    if not settings.redis_url:
        return None
    model = RedisReadModel(
        settings.redis_url, prefix=settings.redis_prefix, password=settings.redis_password
    )
    return BoardPublisher(model)


def provision_topics(settings: ReadSideSettings) -> None:
    """Create the read side's topics if missing (a no-op once ``jackpot kafka provision`` made
    them). A user with the readside role may not create topics: StoreUnavailable saying so."""
    try:
        provision(settings.bootstrap, settings.topics())
    except StoreUnavailable as exc:
        msg = (
            f"{exc}; the read side's topics are made by `jackpot kafka provision --prefix "
            f"{settings.prefix}` as the admin (the readside role may not create topics)"
        )
        raise StoreUnavailable(msg) from exc


def run(settings: ReadSideSettings) -> NoReturn:
    """Run until SIGTERM or SIGINT (mode's worker handles both: it stops the agent, flushes the
    changelog and commits, then returns), then leave with its exit code at once (`stall.leave`:
    joining the threads still out made SIGTERM take over 10 s on a loaded host). faust's data
    directory is a temporary one, removed first (the tables live in memory and in their
    changelog)."""
    code = 1
    with tempfile.TemporaryDirectory(prefix="jackpot-readside-") as datadir:
        loop = asyncio.new_event_loop()  # the app is built in the loop that runs it (issue 13)
        asyncio.set_event_loop(loop)
        side = build(settings, datadir)
        if settings.metrics_port:
            side.metrics.serve(settings.metrics_port, settings.metrics_host)
        logger.info("readside: %s -> %s", TopicNames(settings.prefix).events, settings.app_id)
        worker = faust.Worker(side.app, loop=loop, loglevel="info", quiet=True)
        try:
            worker.execute_from_commandline()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            if side.publisher is not None:
                side.publisher.close()
            if side.hole_reads is not None:
                side.hole_reads.close()
    leave(code, f"readside: stopped (exit {code})")
