"""The signage projector's logic, free of Kafka: the events topic's meter events folded per meter in
``meter_seq`` order, and the changed meters handed to the embedded engine's signage feed.

What a sign reads is built by the same code on both engines:
`streams.embedded.signage_feed.SignageFeed`
publishes ``meter_fields(meter)`` (`controller.model.views.meter_view` as strings) with
``updated_at``
and ``meter.seq``, and `controller.meter.evolve_meter` makes the meter from its events, as the
embedded engine's `evolve` and `streams.scaleout.dump.fold_events` do. Only the order of arrival
differs: `kafka_dump` collects the whole topic and sorts, while `MeterFold` applies each event as
it arrives when it is the meter's next one, passes over one at or below the meter's ``seq`` (a
redelivered input re-emits identical records, `streams.scaleout.records`) and holds one that comes
early until the gap before it is filled. So its state is `kafka_dump`'s fold of what it has read
(checked by ``tests/streams/scaleout/test_signage.py``), kept in memory per meter, never per id.

`Projector` adds what the engine's `serve --redis` wiring does (`streams.cli.serve`): the feed
publishes after each batch, a Redis outage leaves meters dirty while the fold goes on, and a
republish of every meter follows it. On top, because a Redis restarted without persistence raises
nothing, each `Projector.tick` reads back one meter in turn and republishes every meter if Redis
holds an older ``seq`` than the fold (or none), and every meter is republished on a slow timer.
"""

from __future__ import annotations

import logging
import time
from collections import Counter as Tally
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TypeVar

from immutables import Map

from controller.meter import evolve_meter
from controller.model.errors import JackpotError, StoreUnavailable
from controller.model.events import MeterEvent
from controller.model.state import FloorState, MeterState
from streams.adapters.prometheus.projector import SignageMetrics
from streams.clock import utc_now
from streams.codec import decode
from streams.embedded.signage_feed import SignageFeed
from streams.ports import MeterReadModel

logger = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Record:
    """One record of the events topic, as the projector needs it."""

    partition: int
    offset: int
    key: str
    dedupe_id: str
    payload: bytes


def meter_event_of(key: str, dedupe_id: str, payload: bytes) -> MeterEvent | None:
    """The meter event a record holds, or None. The meter processor writes each meter event under
    its meter's key with the id ``{meter_id}@{meter_seq}`` (`streams.scaleout.meters`), so any other
    record is passed over without decoding it; a record that only looks like one is decoded and
    checked."""
    at = len(key)
    if dedupe_id[at : at + 1] != "@" or not dedupe_id.startswith(key):
        return None
    digits = dedupe_id[at + 1 :]
    if not digits.isdigit():
        return None
    try:
        event = decode(payload)
    except (ValueError, JackpotError):  # a table event whose id merely looks like a meter's
        return None
    if not isinstance(event, MeterEvent) or event.meter_id != key:
        return None
    return event if event.meter_seq == int(digits) else None


class MeterFold:
    """Meters from their events in ``meter_seq`` order, whatever order the events come in."""

    def __init__(self) -> None:
        self.meters: Map[str, MeterState] = Map()
        self._held: dict[str, dict[int, MeterEvent]] = {}
        self._partition: dict[str, int] = {}

    @property
    def held(self) -> int:
        """Events waiting for an earlier one of their meter."""
        return sum(len(events) for events in self._held.values())

    def take(self, event: MeterEvent, partition: int = 0) -> tuple[str, list[MeterEvent]]:
        """Fold one event: ("applied", the events applied: it and any held ones it unblocked),
        ("duplicate", []) or ("held", [])."""
        meter_id = event.meter_id
        meter = self.meters.get(meter_id) or MeterState(meter_id=meter_id)
        held = self._held.setdefault(meter_id, {})
        if event.meter_seq <= meter.seq or event.meter_seq in held:
            return "duplicate", []
        if event.meter_seq > meter.seq + 1:
            held[event.meter_seq] = event
            return "held", []
        applied = [event]
        meter = evolve_meter(meter, event)
        while meter.seq + 1 in held:
            applied.append(held.pop(meter.seq + 1))
            meter = evolve_meter(meter, applied[-1])
        self.meters = self.meters.set(meter_id, meter)
        self._partition[meter_id] = partition
        return "applied", applied

    def drop_partitions(self, partitions: Collection[int]) -> None:
        """Forget the meters of ``partitions`` (handed to another projector: its fold is theirs)."""
        gone = [m for m, p in self._partition.items() if p in partitions]
        for meter_id in gone:
            self.meters = self.meters.delete(meter_id)
            self._held.pop(meter_id, None)
            del self._partition[meter_id]


class WatchedModel:
    """A `MeterReadModel` whose failures mark the projector degraded (log, gauge, counter)."""

    def __init__(self, inner: MeterReadModel, metrics: SignageMetrics) -> None:
        self._inner = inner
        self._metrics = metrics
        self.degraded = False

    def publish(self, meter_id: str, seq: int, fields: dict[str, str]) -> bool:
        """As the inner model; a failure is noted and raised on."""
        return self._watch(lambda: self._inner.publish(meter_id, seq, fields))

    def read(self, meter_id: str) -> dict[str, str] | None:
        """As the inner model; a failure is noted and raised on."""
        return self._watch(lambda: self._inner.read(meter_id))

    def _watch(self, call: Callable[[], T]) -> T:
        try:
            result = call()
        except StoreUnavailable as exc:
            self._metrics.failures.inc()
            if not self.degraded:
                logger.warning("signage degraded: %s; folding on, signs will be caught up", exc)
            self.degraded = True
            self._metrics.degraded.set(1)
            raise
        if self.degraded:
            logger.warning("signage recovered: Redis answers again")
        self.degraded = False
        self._metrics.degraded.set(0)
        return result


class Projector:
    """The fold and the feed: `take` a batch of records, `tick` about once a second."""

    def __init__(
        self,
        model: MeterReadModel,
        meter_ids: Collection[str],
        metrics: SignageMetrics,
        *,
        resync_every: float = 60.0,
        clock: Callable[[], str] = utc_now,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """Only ``meter_ids`` (the configured meters) are shown, as on the embedded engine."""
        self.fold = MeterFold()
        self.model = WatchedModel(model, metrics)
        self.metrics = metrics
        self.holding = False  # catching up after a start: fold only, publish once caught up
        self._meter_ids = frozenset(meter_ids)
        self._resync_every = resync_every
        self._monotonic = monotonic
        self._next_resync = monotonic() + resync_every
        self.feed = SignageFeed(
            self.model, self.state, clock=clock, monotonic=monotonic, on_dirty=metrics.dirty.set
        )
        metrics.meters.source = self.shown_meters

    def state(self) -> FloorState:
        """The floor as the feed reads it: the folded meters."""
        return FloorState(meters=self.fold.meters)

    def shown_meters(self) -> Map[str, MeterState] | None:
        """The folded meters for the metrics; None while catching up (old values, not news)."""
        return None if self.holding else self.fold.meters

    @property
    def clean(self) -> bool:
        """Whether Redis holds every meter as folded so far (then offsets may be committed)."""
        return not self.holding and not self.model.degraded and self.feed.dirty_count == 0

    def take(self, records: Iterable[Record], others: int = 0) -> None:
        """Fold a batch (and count ``others``, records already known not to be meter events);
        unless holding, publish the meters it changed (failures leave them dirty: `tick`
        retries)."""
        outcomes: Tally[str] = Tally(other=others)
        applied: list[MeterEvent] = []
        for record in records:
            event = meter_event_of(record.key, record.dedupe_id, record.payload)
            if event is None:
                outcomes["other"] += 1
            elif event.meter_id not in self._meter_ids:
                outcomes["unconfigured"] += 1
            else:
                outcome, done = self.fold.take(event, record.partition)
                outcomes[outcome] += 1
                applied += done
        for outcome, count in outcomes.items():
            self.metrics.records.labels(outcome).inc(count)
        if applied and not self.holding:
            self.metrics.count(applied)
            self.feed.listener(applied)

    def release(self) -> None:
        """Caught up with the topic as it was at the start: publish every meter."""
        self.holding = False
        self.republish("caught_up")

    def republish(self, reason: str) -> None:
        """Publish every meter (the seq guard drops what Redis already holds)."""
        self.metrics.republishes.labels(reason).inc()
        self.feed.republish_all()
        self._next_resync = self._monotonic() + self._resync_every

    def tick(self) -> None:
        """Retry the dirty meters, else read one meter back (a Redis that lost it gets every
        meter again), and republish everything every ``resync_every`` seconds."""
        self.metrics.held.set(self.fold.held)
        if self.holding:
            return
        if self._monotonic() >= self._next_resync:
            self.republish("resync")
        elif self.feed.dirty_count:
            self.feed.flush()
        elif self.feed.check_one():  # Redis lost a meter: the feed republished every one
            logger.warning("signage: Redis lost a meter; every meter republished")
            self.metrics.republishes.labels("lost").inc()
            self._next_resync = self._monotonic() + self._resync_every
