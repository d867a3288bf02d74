"""The Kafka engine's signage projector's Prometheus metrics: its fold and its liveness watch.

Kept here, not beside the projector (`streams.scaleout.signage_fold`, `streams.scaleout.liveness`),
so that ``prometheus_client`` is imported only under `streams.adapters.prometheus`.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server

from controller.config.floor import FloorConfig
from streams.adapters.prometheus.liveness import LivenessCollector
from streams.liveness.tracker import LivenessTracker

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
        self.dirty = Gauge(
            "jackpot_kafka_signage_dirty_meters",
            "Meters whose newest values Redis may not hold",
            registry=self.registry,
        )

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
