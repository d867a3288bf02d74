"""Row "latency": submit-to-sign latency of the embedded engine at a steady rate.

One pacing thread submits the simulated floor's events (`bench.workload`) one at a time to
`streams.embedded.engine.EmbeddedController` over a `streams.adapters.sqlite.SqliteLog` in a
temporary directory
(WAL, ``synchronous=FULL``: each submit is a durable append), at a steady 2,000 events/s for 10 s
(quick: 3 s). A `streams.embedded.signage_feed.SignageFeed` publishes touched meters to the read
model:
`streams.adapters.redis.read_model.RedisReadModel` when ``REDIS_URL`` is set and answers, else
`streams.adapters.memory.MemoryReadModel`. The read model is wrapped to note when each meter's seq
became
visible (the publish returned, so a reader sees it).

Measured from each event's *scheduled* send time (so a submit that falls behind the schedule is
charged the queueing it causes, no coordinated omission):

- ``wagers_locked``: until every meter value it changed (its contributions' ``meter_seq``) is
  visible in the read model;
- a ``round_settled`` with a progressive hit: until the award is visible: the hit's meter seq in
  the read model and the `ProgressiveHit` delivered to a listener subscribed after the feed.

The simulator forces a few hit hands (``forced_hands``) so a short run has some hits to time.
This is the embedded engine; the Kafka engine's latency needs a running worker (not measured here).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import workload
from bench.common import EXAMPLE_CONFIG, Figure, Goal, Mode, Row, Settings
from controller.model.events import Event, MeterEvent, ProgressiveHit
from streams.adapters.memory import MemoryReadModel
from streams.adapters.sqlite import SqliteLog
from streams.cli.simulate import sim_tables
from streams.embedded.engine import EmbeddedController
from streams.embedded.signage_feed import SignageFeed
from streams.ports import MeterReadModel
from streams.sim.floor import FloorSimulator
from streams.sim.settings import (
    AKQ_SPADES,
    COMMUNITY_ROYAL,
    DEALER_ROYAL,
    FIVE_OF_SIX_ROYAL,
    ForcedHands,
)

RATE = 2_000  # events per second
SECONDS: dict[Mode, float] = {"tiny": 0.5, "quick": 3.0, "default": 10.0, "full": 10.0}
FORCED_HANDS = 0.05  # share of rounds dealt a jackpot hand, so a short run has hits to time
FORCED_DEALS = (AKQ_SPADES, COMMUNITY_ROYAL, DEALER_ROYAL, FIVE_OF_SIX_ROYAL)
GOAL = Goal(text="p99 < 50 ms (wagers_locked and awards)", at_most=50.0)


class TimedReadModel:
    """A `MeterReadModel` that notes, per meter, when each published seq became visible."""

    def __init__(self, inner: MeterReadModel) -> None:
        self._inner = inner
        self.visible: dict[str, list[tuple[int, float]]] = {}

    def publish(self, meter_id: str, seq: int, fields: dict[str, str]) -> bool:
        """Publish, then note the time (a reader sees it from now on)."""
        stored = self._inner.publish(meter_id, seq, fields)
        self.visible.setdefault(meter_id, []).append((seq, time.perf_counter()))
        return stored

    def read(self, meter_id: str) -> dict[str, str] | None:
        """The inner model's fields."""
        return self._inner.read(meter_id)

    def seen_at(self, meter_id: str, seq: int) -> float | None:
        """When the meter first showed ``seq`` or later (None: not yet)."""
        for published, at in self.visible.get(meter_id, ()):
            if published >= seq:
                return at
        return None


def read_model() -> tuple[MeterReadModel, str]:
    """Redis if ``REDIS_URL`` answers, else memory; and its name."""
    url = os.environ.get("REDIS_URL", "")
    if url:
        from streams.adapters.redis.read_model import RedisReadModel  # noqa: PLC0415  # only with Redis

        model = RedisReadModel(url, prefix=f"bench-latency-{os.getpid()}")
        if model.ping():
            return model, "RedisReadModel"
        model.close()
    return MemoryReadModel(), "MemoryReadModel"


def paced_events(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` events of the example floor, with hit hands forced now and then."""
    _, config = workload.example_floor()
    rng = random.Random(seed)  # noqa: S311 - a repeatable benchmark input
    forced = ForcedHands(probability=FORCED_HANDS, deals=FORCED_DEALS)
    simulator = FloorSimulator(
        sim_tables(config), rng, workload.START, void_rate=workload.VOID_RATE, forced_hands=forced
    )
    return list(simulator.events(count))


class Probe:
    """Collects latencies: what each submit produced, and when the award reached a listener."""

    def __init__(self, model: TimedReadModel) -> None:
        self.model = model
        self.batch: list[Event] = []
        self.hits_delivered: dict[str, float] = {}
        self.locked_ms: list[float] = []
        self.award_ms: list[float] = []
        self.missing = 0

    def capture(self, events: Sequence[Event]) -> None:
        """Subscribed before the feed: what the batch holds."""
        self.batch = list(events)

    def delivered(self, events: Sequence[Event]) -> None:
        """Subscribed after the feed: when each hit reached a listener."""
        now = time.perf_counter()
        for event in events:
            if isinstance(event, ProgressiveHit):
                self.hits_delivered[event.hit_id] = now

    def account(self, kind: str, scheduled: float) -> None:
        """Latencies of the event just submitted (scheduled at ``scheduled``)."""
        meter_events = [e for e in self.batch if isinstance(e, MeterEvent)]
        if kind == "wagers_locked" and meter_events:
            done = self._visible(meter_events)
            if done is not None:
                self.locked_ms.append((done - scheduled) * 1000)
        hits = [e for e in meter_events if isinstance(e, ProgressiveHit)]
        if kind == "round_settled" and hits:
            seen = self._visible(hits)
            delivered = [self.hits_delivered.get(hit.hit_id) for hit in hits]
            if seen is None or None in delivered:
                self.missing += 1
                return
            done = max(seen, *(d for d in delivered if d is not None))
            self.award_ms.append((done - scheduled) * 1000)
        self.batch = []

    def _visible(self, events: Sequence[MeterEvent]) -> float | None:
        times = [self.model.seen_at(e.meter_id, e.meter_seq) for e in events]
        if None in times:
            self.missing += 1
            return None
        return max(t for t in times if t is not None)


def drive(controller: EmbeddedController, raws: Sequence[dict[str, Any]], probe: Probe) -> float:
    """Submit ``raws`` at `RATE` from this thread; the achieved rate."""
    interval = 1.0 / RATE
    started = time.perf_counter()
    for index, raw in enumerate(raws):
        scheduled = started + index * interval
        pause = scheduled - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        controller.submit([raw])
        probe.account(str(raw["type"]), scheduled)
    return len(raws) / (time.perf_counter() - started)


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank); NaN when there is nothing to rank."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run_rows(settings: Settings) -> list[Row]:
    """The latency row."""
    count = int(RATE * SECONDS[settings.mode])
    raws = paced_events(count, settings.seed)
    text = workload.example_text()
    inner, model_name = read_model()
    model = TimedReadModel(inner)
    with tempfile.TemporaryDirectory(prefix="bench-latency-") as folder:
        log = SqliteLog(Path(folder) / "latency.db")
        try:
            controller = EmbeddedController(log, log)
            controller.start(text, str(EXAMPLE_CONFIG))
            probe = Probe(model)
            feed = SignageFeed(model, lambda: controller.state)
            controller.subscribe(probe.capture)
            controller.subscribe(feed.listener)
            controller.subscribe(probe.delivered)
            feed.republish_all()
            achieved = drive(controller, raws, probe)
        finally:
            log.close()
    locked, awards = probe.locked_ms, probe.award_ms
    p99 = max(percentile(locked, 0.99), percentile(awards, 0.99) if awards else 0.0)
    extra: dict[str, Figure] = {
        "rate_target": RATE,
        "rate_achieved": round(achieved, 1),
        "seconds": SECONDS[settings.mode],
        "read_model": model_name,
        "wagers_locked": len(locked),
        "wagers_locked_p50_ms": round(percentile(locked, 0.5), 3),
        "wagers_locked_p99_ms": round(percentile(locked, 0.99), 3),
        "wagers_locked_max_ms": round(max(locked, default=float("nan")), 3),
        "awards": len(awards),
        "award_p50_ms": round(percentile(awards, 0.5), 3),
        "award_p99_ms": round(percentile(awards, 0.99), 3),
        "award_max_ms": round(max(awards, default=float("nan")), 3),
        "not_visible": probe.missing,
        "mean_ms": round(statistics.fmean(locked + awards), 3) if locked + awards else None,
    }
    notes = (
        f"embedded engine (SqliteLog, SignageFeed -> {model_name}) at a steady {RATE} events/s; "
        f"wagers_locked p50 {extra['wagers_locked_p50_ms']} / p99 {extra['wagers_locked_p99_ms']}"
        f" ms (n={len(locked)}), award p50 {extra['award_p50_ms']} / p99 {extra['award_p99_ms']}"
        f" ms (n={len(awards)}); from scheduled send; Kafka latency not measured (needs a worker)"
    )
    return [
        Row(
            name="latency",
            unit="ms",
            value=p99,
            reference_name="",
            goal=GOAL,
            samples=tuple(locked + awards) if settings.mode == "tiny" else (),
            notes=notes,
            extra=extra,
        )
    ]
