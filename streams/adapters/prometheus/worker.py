"""The Kafka worker's Prometheus metrics, under the names the alert rules and the dashboard use.

The shared names mean the same on both engines: `streams.adapters.prometheus.sensor` (the embedded
engine) and the
worker both export ``jackpot_awards_total`` and ``jackpot_last_event_timestamp_seconds``, and
`deploy/prometheus/alerts.yml` reads ``jackpot_consumer_lag`` and the dashboard
``jackpot_processing_seconds`` from the workers (``tests/streams/test_metric_names.py`` checks
that every name a rule or a panel uses is exported by one of the two). Labels come from fixed sets
only (``processor``, ``outcome``, ``kind``, the source ``topic`` and ``partition``): never a
table, seat, round or event id, so the series count does not grow with the floor. Each worker
owns its `CollectorRegistry`.

==========================================  =========  ==========================================
metric                                      type       labels
==========================================  =========  ==========================================
``jackpot_processing_seconds``              histogram  processor (round, meter): one batch,
                                                       decided to stored and committed
``jackpot_consumer_lag``                    gauge      topic, partition: records after the
                                                       stored progress (at scrape time)
``jackpot_last_event_timestamp_seconds``    gauge      when the worker last processed an input
                                                       (table event or claim; start time before)
``jackpot_inputs_total``                    counter    processor, outcome (accepted, rejected,
                                                       duplicate, redelivered, applied, seeded,
                                                       dead_letter)
``jackpot_outputs_total``                   counter    processor: records produced (before
                                                       downstream de-duplication)
``jackpot_awards_total``                    counter    kind (progressive, fixed, envy)
``jackpot_stale_writes_total``              counter    processor: state not stored because the
                                                       partition was revoked mid-batch
``jackpot_gap_records_total``               counter    processor: records faust skipped, repaired
==========================================  =========  ==========================================
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from streams.codec import Output

_AWARD_KINDS = {b'"type":"progressive_hit"': "progressive", b'"type":"fixed_awarded"': "fixed"}
#: Batches take milliseconds to seconds (the default buckets stop at 10 s).
_BATCH_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: (topic, partition, records not yet processed) for every assigned source partition.
LagSource = Callable[[], Iterable[tuple[str, int, int]]]


class LagCollector(Collector):
    """``jackpot_consumer_lag`` read at scrape time, so a stuck worker still reports its lag."""

    def __init__(self) -> None:
        self.sources: list[LagSource] = []

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "jackpot_consumer_lag",
            "Records in the worker's source partitions after its stored progress",
            labels=["topic", "partition"],
        )
        for source in self.sources:
            for topic, partition, lag in source():
                family.add_metric([topic, str(partition)], lag)
        yield family


class WorkerMetrics:
    """The worker's counters, gauges and histograms on its own registry."""

    def __init__(self) -> None:
        self.registry = reg = CollectorRegistry()
        self.processing_seconds = Histogram(
            "jackpot_processing_seconds",
            "Time to decide, produce, await acks, store and commit one batch",
            ["processor"],
            buckets=_BATCH_BUCKETS,
            registry=reg,
        )
        self.lag = LagCollector()
        reg.register(self.lag)
        self.last_event = Gauge(
            "jackpot_last_event_timestamp_seconds",
            "When the worker last processed an input record (the stall alerts watch it)",
            registry=reg,
        )
        self.last_event.set(time.time())  # a worker that never processes goes stale from start
        processor = ["processor"]
        self.inputs = Counter(
            "jackpot_inputs", "Input records handled", [*processor, "outcome"], registry=reg
        )
        self.outputs = Counter(
            "jackpot_outputs", "Records produced (before de-duplication)", processor, registry=reg
        )
        self.awards = Counter("jackpot_awards", "Awards produced", ["kind"], registry=reg)
        for kind in ("progressive", "fixed", "envy"):
            self.awards.labels(kind)  # present at 0, as on the embedded engine
        self.gap_records = Counter(
            "jackpot_gap_records",
            "Records the consumer skipped (committed past) that were read back and processed",
            processor,
            registry=reg,
        )
        self.stale_writes = Counter(
            "jackpot_stale_writes",
            "State writes dropped because the partition was revoked mid-batch",
            processor,
            registry=reg,
        )

    def serve(self, port: int, addr: str = "127.0.0.1") -> None:
        """Expose ``/metrics`` on ``addr:port`` (a daemon thread)."""
        start_http_server(port, addr=addr, registry=self.registry)

    def record(
        self, processor: str, outcomes: Iterable[str], outputs: Iterable[Output], seconds: float
    ) -> None:
        """Count one finished batch: its outcomes, its outputs and how long it took."""
        counts: dict[str, int] = {}
        for outcome in outcomes:
            counts[outcome] = counts.get(outcome, 0) + 1
        for outcome, count in counts.items():
            self.inputs.labels(processor, outcome).inc(count)
        produced = 0
        for out in outputs:
            produced += 1
            if out.topic.endswith(".awards"):
                self.awards.labels(_award_kind(out.value)).inc()
        self.outputs.labels(processor).inc(produced)
        self.processing_seconds.labels(processor).observe(seconds)
        if counts:
            self.last_event.set(time.time())


def _award_kind(value: bytes) -> str:
    for marker, kind in _AWARD_KINDS.items():
        if marker in value:
            return kind
    return "envy"
