"""The Kafka worker's Prometheus metrics, under the names the alert rules and the dashboard use.

The shared names mean the same on both engines, with the same labels: the embedded engine's
`streams.adapters.prometheus.sensor` and the Kafka engine (this worker, plus the signage
projector's `streams.adapters.prometheus.projector` for the meters, contributions and signage)
export every name `deploy/prometheus/alerts.yml` and the dashboard read
(``tests/integration/test_metrics_names.py`` scrapes both engines to check it). Labels come from
fixed sets only (``processor``, ``outcome``, ``kind``, ``reason_class``, the source ``topic`` and
``partition``): never a table, seat, round or event id, so the series count does not grow with
the floor. Each worker owns its `CollectorRegistry`.

==========================================  =========  ==========================================
metric                                      type       labels
==========================================  =========  ==========================================
``jackpot_processing_seconds``              histogram  processor (round, meter): one batch,
                                                       decided to stored and committed
``jackpot_consumer_lag``                    gauge      topic, partition: records after the
                                                       stored progress (at scrape time)
``jackpot_worker_assigned_partitions``      gauge      topic: the source partitions this worker
                                                       owns (state restored, consumed; at scrape
                                                       time); 0 while it joins or holds nothing
``jackpot_last_event_timestamp_seconds``    gauge      when the worker last processed an input
                                                       (table event, heartbeat or claim; start
                                                       time before): the embedded engine's is the
                                                       last accepted table event (heartbeats are
                                                       not logged there), so a floor sending only
                                                       heartbeats looks stalled there, not here
``jackpot_inputs_total``                    counter    processor, outcome (accepted, rejected,
                                                       duplicate, redelivered, applied, seeded,
                                                       dead_letter)
``jackpot_outputs_total``                   counter    processor: records produced (before
                                                       downstream de-duplication)
``jackpot_awards_total``                    counter    kind (progressive, fixed, envy): one per
                                                       player paid, as on the embedded engine
``jackpot_awarded_dollars_total``           counter    kind: the amounts awarded, exact to the
                                                       cent (`MoneyCounter`)
``jackpot_rejections_total``                counter    reason_class (`sensor.REASON_CLASSES`):
                                                       refused table events
``jackpot_stale_writes_total``              counter    processor: batches aborted (fenced or
                                                       failed)
``jackpot_gap_records_total``               counter    processor: stays 0 (no gap repair)
==========================================  =========  ==========================================

Awards and rejections are read off the batch's outputs (the awards topic's records and the
events topic's ``rejected@`` records): both are rare, so parsing them costs the worker nothing
measurable, and the common records (table and meter events) are never decoded here. Each output's
topic is sorted once per topic name (`_sort`: sets of the quiet and the events topics), and only
an events-topic record's dedupe id is read: a liveness record's is built on reading
(`streams.scaleout.heard`), one per input, and reading every one cost ~4% of the worker's CPU.
The outcomes are tallied by `collections.Counter` (in C; the same counts, in the same order).
"""

from __future__ import annotations

import json
import time
from collections import Counter as Tally
from collections.abc import Callable, Collection, Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from controller.model.money import parse_cents
from streams.adapters.prometheus.money import MoneyCounter
from streams.adapters.prometheus.sensor import AWARD_KINDS, reason_class
from streams.codec import Output

#: Batches take milliseconds to seconds (the default buckets stop at 10 s).
_BATCH_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: (topic, partition, records not yet processed) for every assigned source partition.
LagSource = Callable[[], Iterable[tuple[str, int, int]]]
#: (source topic, partitions of it the worker owns) for every source topic.
AssignedSource = Callable[[], Iterable[tuple[str, int]]]


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


class AssignedCollector(Collector):
    """``jackpot_worker_assigned_partitions`` read at scrape time: which worker holds what is
    otherwise only in the group's description (a broker call) or the workers' logs."""

    def __init__(self) -> None:
        self.sources: list[AssignedSource] = []

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "jackpot_worker_assigned_partitions",
            "Source partitions this worker owns (state restored and consumed), per topic",
            labels=["topic"],
        )
        for source in self.sources:
            for topic, count in source():
                family.add_metric([topic], count)
        yield family


class WorkerMetrics:
    """The worker's counters, gauges and histograms on its own registry."""

    def __init__(self) -> None:
        self._quiet: set[str] = set()  # output topics nothing is counted on (liveness, claims)
        self._events: set[str] = set()  # the events topics seen (their ``rejected@`` records)
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
        self.assigned = AssignedCollector()
        reg.register(self.assigned)
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
        self.awards = Counter(
            "jackpot_awards", "Awards (one per player paid)", ["kind"], registry=reg
        )
        for kind in AWARD_KINDS:
            self.awards.labels(kind)  # present at 0, as on the embedded engine
        self.awarded = MoneyCounter(
            "jackpot_awarded_dollars", "Amounts awarded", "kind", 100, AWARD_KINDS
        )
        reg.register(self.awarded)
        self.rejections = Counter(
            "jackpot_rejections", "Refused inputs by class", ["reason_class"], registry=reg
        )
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
        self, processor: str, outcomes: Iterable[str], outputs: Collection[Output], seconds: float
    ) -> None:
        """Count one finished batch: its outcomes, its outputs and how long it took."""
        counts = Tally(outcomes)
        for outcome, count in counts.items():
            self.inputs.labels(processor, outcome).inc(count)
        quiet, events = self._quiet, self._events
        for out in outputs:
            topic = out.topic
            if topic in quiet:
                continue
            kind = "events" if topic in events else self._sort(topic)
            if kind == "events":  # ~1 output an input; only these dedupe ids are read
                if out.dedupe_id.startswith("rejected@"):
                    self._rejection(out.value)
            elif kind == "awards":
                self._award(out.value)
        self.outputs.labels(processor).inc(len(outputs))
        self.processing_seconds.labels(processor).observe(seconds)
        if counts:
            self.last_event.set(time.time())

    def _sort(self, topic: str) -> str:
        """What ``topic`` (not yet known as events or quiet) holds for the counters: "events"
        and "quiet" topics are remembered (an awards topic's records are rare)."""
        if topic.endswith(".events"):
            self._events.add(topic)
            return "events"
        if topic.endswith(".awards"):
            return "awards"
        self._quiet.add(topic)
        return "quiet"

    def _award(self, value: bytes) -> None:
        """Count one awards-topic record (`schemas/award.v1.json`): each player paid."""
        award = json.loads(value)
        kind = str(award["kind"])
        for payment in award["paid"]:
            self.awards.labels(kind).inc()
            self.awarded.add(kind, parse_cents(payment["amount"]))

    def _rejection(self, value: bytes) -> None:
        """Count one ``event_rejected`` record under its reason's class (as the sensor does)."""
        rejected = json.loads(value)
        klass = reason_class(str(rejected.get("reason", "")), str(rejected.get("event_type", "")))
        self.rejections.labels(klass).inc()
