"""The Kafka engine's signage projector's Prometheus metrics: its fold and its liveness watch.

The projector folds every meter event of the events topic (`read_committed`: what the workers
committed), so it is where the Kafka engine exports the meter metrics the embedded engine's
sensor exports, under the same names and labels: ``jackpot_meter_amount_dollars``,
``jackpot_meter_reserve_dollars`` and ``jackpot_meter_overflow_dollars`` per meter (computed at
each scrape from the fold; none while it is catching up after a start, so a restart never shows
a meter climbing back from an old value, which the "decreased without a hit" alert would read as
a drop), ``jackpot_contributions_total`` and ``jackpot_contributed_dollars_total`` per meter
(counted as events are folded live, not while catching up: a restart is a counter reset, as for
any process), and ``jackpot_signage_dirty_meters``. The worker exports the rest
(`streams.adapters.prometheus.worker`).

Kept here, not beside the projector (`streams.scaleout.signage_fold`, `streams.scaleout.liveness`),
so that ``prometheus_client`` is imported only under `streams.adapters.prometheus`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from controller.config.floor import FloorConfig
from controller.model.events import ContributionRecorded, MeterEvent
from controller.model.state import MeterState
from streams.adapters.prometheus.liveness import LivenessCollector
from streams.adapters.prometheus.money import MoneyCounter
from streams.adapters.prometheus.sensor import SUBUNITS_PER_DOLLAR
from streams.liveness.tracker import LivenessTracker

#: The meters to export now (None: catching up, export none).
MeterSource = Callable[[], Mapping[str, MeterState] | None]


class MeterCollector(Collector):
    """The meter gauges of the embedded sensor, computed from the fold at each scrape."""

    def __init__(self) -> None:
        self.source: MeterSource = lambda: None

    def describe(self) -> Iterator[Metric]:
        """The families without samples."""
        yield from _meter_families()

    def collect(self) -> Iterator[Metric]:
        """Each folded meter's amount, reserve and overflow in dollars (none while catching up)."""
        families = _meter_families()
        amount, reserve, overflow = families
        for meter_id, meter in sorted((self.source() or {}).items()):
            amount.add_metric([meter_id], meter.amount_sub / SUBUNITS_PER_DOLLAR)
            reserve.add_metric([meter_id], meter.reserve_sub / SUBUNITS_PER_DOLLAR)
            overflow.add_metric([meter_id], meter.overflow_sub / SUBUNITS_PER_DOLLAR)
        yield from families


def _meter_families() -> tuple[GaugeMetricFamily, GaugeMetricFamily, GaugeMetricFamily]:
    meter = ["meter"]
    return (
        GaugeMetricFamily("jackpot_meter_amount_dollars", "Meter amount shown", labels=meter),
        GaugeMetricFamily(
            "jackpot_meter_reserve_dollars", "Meter reserve (hidden pool)", labels=meter
        ),
        GaugeMetricFamily(
            "jackpot_meter_overflow_dollars",
            "Contributed above the meter's ceiling, carried to its next 100% hit's restart",
            labels=meter,
        ),
    )


__all__ = ["CollectorRegistry", "LivenessWatchMetrics", "SignageMetrics"]


class SignageMetrics:
    """The projector's Prometheus metrics, on their own registry (ids never become labels)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.records = Counter(
            "jackpot_kafka_signage_records",
            "Events-topic records read, by outcome (applied, duplicate, held, other, unconfigured)",
            ["outcome"],
            registry=self.registry,
        )
        self.failures = Counter(
            "jackpot_kafka_signage_redis_failures",
            "Redis calls that failed (publish or read-back)",
            registry=self.registry,
        )
        self.republishes = Counter(
            "jackpot_kafka_signage_republishes",
            "Republications of every meter, by reason (caught_up, resync, lost)",
            ["reason"],
            registry=self.registry,
        )
        self.degraded = Gauge(
            "jackpot_kafka_signage_degraded",
            "1 while Redis does not answer (the fold goes on; signs show stale values)",
            registry=self.registry,
        )
        self.held = Gauge(
            "jackpot_kafka_signage_held_events",
            "Meter events waiting for an earlier one of their meter (stays 0 unless one is lost)",
            registry=self.registry,
        )
        self.dirty = Gauge(  # the embedded engine's name: the signage alerts read it
            "jackpot_signage_dirty_meters",
            "Meters whose latest value has not reached the signage read model",
            registry=self.registry,
        )
        self._meter_metrics()

    def _meter_metrics(self) -> None:
        self.meters = MeterCollector()
        self.registry.register(self.meters)
        self.contributions = Counter(
            "jackpot_contributions",
            "Progressive wagers that funded a meter",
            ["meter"],
            registry=self.registry,
        )
        self.contributed = MoneyCounter(  # exact: integer sub-units, divided once per scrape
            "jackpot_contributed_dollars",
            "Primary plus reserve contributed",
            "meter",
            SUBUNITS_PER_DOLLAR,
        )
        self.registry.register(self.contributed)

    def count(self, events: Iterable[MeterEvent]) -> None:
        """Count the contributions among meter events folded live (as the sensor counts them)."""
        for event in events:
            if isinstance(event, ContributionRecorded):
                self.contributions.labels(event.meter_id).inc()
                self.contributed.add(event.meter_id, event.primary_sub + event.reserve_sub)

    def serve(self, port: int, addr: str = "127.0.0.1") -> None:
        """Expose ``/metrics`` on ``addr:port`` (a daemon thread)."""
        start_http_server(port, addr=addr, registry=self.registry)


class LivenessWatchMetrics:
    """The liveness watch's counters and the shared liveness gauges, on the given registry."""

    def __init__(
        self,
        source: Callable[[], tuple[LivenessTracker, FloorConfig | None]],
        registry: CollectorRegistry | None = None,
    ) -> None:
        self.registry = registry or CollectorRegistry()
        self.registry.register(LivenessCollector(source))
        self.records = Counter(
            "jackpot_kafka_liveness_records",
            "Liveness-topic records read, by outcome (heard, unconfigured)",
            ["outcome"],
            registry=self.registry,
        )
        self.failures = Counter(
            "jackpot_kafka_liveness_board_failures",
            "Playability writes to Redis that failed (the next one is whole)",
            registry=self.registry,
        )
