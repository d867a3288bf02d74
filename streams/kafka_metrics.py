"""A small worker-level set of Prometheus metrics for the Kafka processors.

Interim until `streams.metrics` (the shared sensor) covers the scale-out engine. Labels come from
fixed sets only (``processor``, ``outcome``, ``kind``): never a table, seat, round or event id, so
the series count does not grow with the floor. Each worker owns its `CollectorRegistry`.

================================  =========  ==============================================
metric                            type       labels
================================  =========  ==============================================
``jackpot_kafka_inputs_total``    counter    processor (round, meter), outcome (accepted,
                                             rejected, duplicate, redelivered, applied,
                                             seeded, dead_letter)
``jackpot_kafka_outputs_total``   counter    processor
``jackpot_kafka_batch_seconds``   histogram  processor: decide + produce + ack + store
``jackpot_kafka_awards_total``    counter    kind (progressive, fixed, envy)
``jackpot_kafka_stale_writes_total``  counter  processor: state not stored because the
                                             partition was revoked mid-batch
``jackpot_kafka_gap_records_total``   counter  processor: records faust skipped, repaired
================================  =========  ==============================================
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server

from streams.kafka_codec import Output

_AWARD_KINDS = {b'"type":"progressive_hit"': "progressive", b'"type":"fixed_awarded"': "fixed"}


class WorkerMetrics:
    """The worker's counters and histograms on its own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.inputs = Counter(
            "jackpot_kafka_inputs",
            "Input records handled, by processor and outcome",
            ["processor", "outcome"],
            registry=self.registry,
        )
        self.outputs = Counter(
            "jackpot_kafka_outputs",
            "Records produced (before downstream de-duplication)",
            ["processor"],
            registry=self.registry,
        )
        self.batch_seconds = Histogram(
            "jackpot_kafka_batch_seconds",
            "Time to decide, produce, await acks and store one batch",
            ["processor"],
            registry=self.registry,
        )
        self.awards = Counter(
            "jackpot_kafka_awards", "Awards produced", ["kind"], registry=self.registry
        )
        self.gap_records = Counter(
            "jackpot_kafka_gap_records",
            "Records the consumer skipped (committed past) that were read back and processed",
            ["processor"],
            registry=self.registry,
        )
        self.stale_writes = Counter(
            "jackpot_kafka_stale_writes",
            "State writes dropped because the partition was revoked mid-batch",
            ["processor"],
            registry=self.registry,
        )

    def serve(self, port: int, addr: str = "127.0.0.1") -> None:
        """Expose ``/metrics`` on ``addr:port`` (a daemon thread)."""
        start_http_server(port, addr=addr, registry=self.registry)

    def record(self, processor: str, outcomes: Iterable[str], outputs: Iterable[Output]) -> None:
        """Count one batch's outcomes and outputs."""
        for outcome in outcomes:
            self.inputs.labels(processor, outcome).inc()
        produced = 0
        for out in outputs:
            produced += 1
            if out.topic.endswith(".awards"):
                self.awards.labels(_award_kind(out.value)).inc()
        self.outputs.labels(processor).inc(produced)


def _award_kind(value: bytes) -> str:
    for marker, kind in _AWARD_KINDS.items():
        if marker in value:
            return kind
    return "envy"
