"""Playability on the Kafka engine: the liveness topic into a tracker, the Redis board and metrics.

Runs inside ``jackpot kafka signage`` (same Redis, same floor configuration, same loop). The round
processor writes a record to ``<p>.liveness`` for every input that shows a table alive (an
accepted event, a duplicate of one, a heartbeat: `streams.scaleout.rounds.heard_output`), keyed by
the table; the topic is compacted and stamped by the broker (``LogAppendTime``).

- **Reading.** A consumer of its own that joins no group and commits nothing: it is assigned every
  partition from the beginning (compaction keeps about one record per table, and every projector
  needs every table). A key the configuration does not name is skipped and counted.
- **Clocks.** The broker's stamp says when the controller heard the table; the tracker is told the
  sighting is (this host's wall clock - stamp) old, so a restarted projector knows at once which
  tables spoke within the limit and a record read late counts from when it was written. Keep the
  hosts in NTP sync; a stamp in the future counts as now. Once noted, silence is timed by the
  monotonic clock (`streams.liveness.tracker`).
- **The controller down.** A worker that is down or stuck writes no liveness records, so every
  table it owns turns unplayable once the limit passes: the outage is reported, not hidden. A
  projector that is down stops refreshing the board's ``as_of``, and readers then treat every
  table as unplayable (`streams.adapters.redis.playability_board`).
- **Publishing.** Every `tick` (a second) writes the board fields whose status changed and
  ``as_of`` (`streams.adapters.redis.playability_board.BoardPublisher`, shared with ``jackpot serve
  --redis``).
  Nothing here touches a meter.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Message, TopicPartition

from controller.config.floor import FloorConfig
from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.read import partitions_of, text
from streams.adapters.kafka.security import client_settings
from streams.adapters.prometheus.projector import CollectorRegistry, LivenessWatchMetrics
from streams.adapters.redis.playability_board import BoardPublisher
from streams.clock import wall_now
from streams.liveness.tracker import LivenessTracker
from streams.ports import Board
from streams.scaleout.signage_read import end_offset

logger = logging.getLogger(__name__)
BATCH = 5_000


@dataclass(frozen=True, slots=True)
class Sighting:
    """A liveness record: the table, the broker's stamp (ms since the epoch) and where it is."""

    table_id: str
    stamp_ms: int
    partition: int = 0
    offset: int = 0


def sightings_of(messages: Iterable[Message]) -> list[Sighting]:
    """The sightings in a consume call (errors are logged: librdkafka retries; fatal raises)."""
    out: list[Sighting] = []
    for message in messages:
        error = message.error()
        if error is not None:
            if error.fatal():
                raise KafkaException(error)
            logger.warning("liveness: consumer: %s", error)
            continue
        where = (message.partition() or 0, message.offset() or 0)
        out.append(Sighting(text(message.key()), message.timestamp()[1], *where))
    return out


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Clocks:
    """The watch's clocks, injected so tests drive time without sleeping."""

    monotonic: Callable[[], float] = time.monotonic
    wall: Callable[[], datetime] = wall_now
    wall_ms: Callable[[], int] = _wall_ms


class LivenessWatch:
    """Sightings in, board writes and gauges out (module docstring)."""

    def __init__(
        self,
        config: FloorConfig,
        board: Board,
        *,
        registry: CollectorRegistry | None = None,
        clocks: Clocks | None = None,
        resync_every: float = 60.0,
    ) -> None:
        self._config = config
        self._clocks = clocks or Clocks()
        self.tracker = LivenessTracker(
            self._clocks.monotonic, self._clocks.wall, started_by="the signage projector"
        )
        self._publisher = BoardPublisher(
            self.tracker,
            lambda: config,
            board,
            clock=self._clocks.monotonic,
            wall=self._clocks.wall,
            resync_every=resync_every,
        )
        self.metrics = LivenessWatchMetrics(lambda: (self.tracker, self._config), registry)
        self.records, self.failures = self.metrics.records, self.metrics.failures

    def take(self, sightings: Iterable[Sighting]) -> None:
        """Note each sighting of a configured table, dated by the broker's stamp."""
        now_ms, known = self._clocks.wall_ms(), self._config.tables
        heard: list[tuple[str, float]] = []
        for sighting in sightings:
            if sighting.table_id in known:
                heard.append((sighting.table_id, (now_ms - sighting.stamp_ms) / 1000))
            else:
                self.records.labels("unconfigured").inc()
        self.tracker.heard_ago(heard)
        self.records.labels("heard").inc(len(heard))

    def tick(self) -> None:
        """Publish what changed since the last tick (`playability_board.BoardPublisher`)."""
        if not self._publisher.tick():
            self.failures.inc()


class LivenessFeed:
    """The liveness topic's consumer driving a `LivenessWatch` (polled by the projector's loop).

    ``ready`` once every partition has been read up to the end it had when assigned: until then
    the board is not written, so a restarted projector does not flash every sign NOT IN PLAY for
    the moment before it has read who spoke lately."""

    def __init__(
        self, consumer: Consumer, watch: LivenessWatch, topic: str, ends: dict[int, int]
    ) -> None:
        self.consumer, self.watch, self.topic = consumer, watch, topic
        self._ends = {p: end for p, end in ends.items() if end > 0}

    @property
    def ready(self) -> bool:
        """Whether the records that were on the topic at the start have all been read."""
        return not self._ends

    @classmethod
    def open(cls, bootstrap: str, topic: str, group: str, watch: LivenessWatch) -> LivenessFeed:
        """Every partition of ``topic`` from its beginning; StoreUnavailable if it is missing
        (a deployment provisioned before this topic existed: run ``jackpot kafka provision``)."""
        consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                **client_settings(),
                "group.id": group,  # never joined (assign, no commits); librdkafka wants one
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "isolation.level": "read_committed",
                "log_level": 3,
            }
        )
        try:
            partitions = [TopicPartition(topic, p) for p in partitions_of(consumer, topic, 10.0)]
            ends = {tp.partition: end_offset(consumer, tp) for tp in partitions}
        except StoreUnavailable:
            consumer.close()
            raise
        consumer.assign(
            [TopicPartition(topic, tp.partition, OFFSET_BEGINNING) for tp in partitions]
        )
        return cls(consumer, watch, topic, ends)

    def poll(self) -> int:
        """Take what has arrived, without waiting; how many records."""
        sightings = sightings_of(self.consumer.consume(num_messages=BATCH, timeout=0))
        if sightings:
            self.watch.take(sightings)
        if self._ends:
            self._catch_up()
        return len(sightings)

    def _catch_up(self) -> None:
        """Drop each partition whose next offset reached its end (positions count gaps left by
        compaction, which record offsets would not)."""
        asked = [TopicPartition(self.topic, p) for p in self._ends]
        for tp in self.consumer.position(asked):
            if tp.offset >= self._ends.get(tp.partition, 0):
                self._ends.pop(tp.partition, None)

    def tick(self) -> None:
        """Publish what changed (`LivenessWatch.tick`)."""
        self.watch.tick()

    def close(self) -> None:
        """Release the consumer (nothing to commit)."""
        self.consumer.close()
