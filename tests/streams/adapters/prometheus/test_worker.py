"""The worker's metrics: every name the alert rules and the dashboard read is exported by the code
(the embedded engine's `MetricsSensor`, the worker's `WorkerMetrics` or the read side's
`ReadSideMetrics`), and the worker's own figures count what a batch did."""

from __future__ import annotations

import json
from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest

from controller.model.events import AwardShare, EventRejected, FixedAwarded, ProgressiveHit
from streams.adapters.prometheus.readside import ReadSideMetrics, ReadSideSnapshot
from streams.adapters.prometheus.sensor import MetricsSensor
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.codec import Output
from streams.scaleout.records import event_output
from tests.integration.test_deploy_config import (
    BUILTIN,
    dashboard_queries,
    metric_names,
    promql_of,
    recorded,
    rules,
)

ROYAL = ("As", "Ks", "Qs", "Js", "Ts")
DEPLOY = Path(__file__).resolve().parents[4] / "deploy"
_SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}


def exported(registry: CollectorRegistry) -> set[str]:
    """The series names a registry exports, whether or not a labelled child exists yet."""
    names: set[str] = set()
    for family in registry.collect():
        names.update(family.name + suffix for suffix in _SUFFIXES.get(family.type, ("",)))
    return names


def code_names() -> set[str]:
    code = exported(MetricsSensor().registry) | exported(WorkerMetrics().registry)
    return code | exported(ReadSideMetrics(ReadSideSnapshot).registry)


def test_every_metric_an_alert_rule_reads_is_exported_by_the_code() -> None:
    used = {name for rule in rules() for name in metric_names(rule["expr"])}
    missing = sorted(used - code_names() - recorded() - BUILTIN)
    assert not missing, f"alerts.yml reads metrics no code exports: {missing}"


def test_every_metric_the_dashboard_reads_is_exported_by_the_code() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "dashboard.json").read_text(encoding="utf-8"))
    used = {n for q in dashboard_queries(dashboard) for n in metric_names(promql_of(q))}
    missing = sorted(used - code_names() - recorded() - BUILTIN)
    assert not missing, f"dashboard.json reads metrics no code exports: {missing}"


def test_the_worker_exports_what_the_worker_alerts_read() -> None:
    # JackpotWorkerStuck and JackpotConsumerLagHigh are about workers: the worker must export
    # their inputs itself, not rely on the API process.
    worker = exported(WorkerMetrics().registry)
    assert {"jackpot_consumer_lag", "jackpot_last_event_timestamp_seconds"} <= worker
    assert "jackpot_processing_seconds_bucket" in worker
    assert not [name for name in worker if name.startswith("jackpot_kafka_")]


def test_a_batch_is_counted_and_lag_is_read_at_scrape_time() -> None:
    metrics = WorkerMetrics()
    lags = [("p.table-events", 0, 7), ("p.table-events", 3, 0)]
    metrics.lag.sources.append(lambda: lags)
    fixed = FixedAwarded(
        meter_id="m1",
        table_id="t1",
        round_id="r1",
        wager="progressive",
        hand="royal_flush",
        cards=ROYAL,
        seat=2,
        on="own",
        amount_cents=1_000_000,
        occurred_at="2026-11-29T12:00:00Z",
    )
    award = event_output("p.awards", "t1", fixed, "e1#0")
    split = ProgressiveHit(  # a dealer-hand jackpot split between two players: two awards
        meter_id="m1",
        table_id="t1",
        round_id="r1",
        wager="progressive",
        hand="royal_flush",
        cards=ROYAL,
        hit_id="h1",
        on="dealer",
        share="100%",
        amount_cents=2_500_001,
        winners=(
            AwardShare(seat=1, amount_cents=1_250_001),
            AwardShare(seat=4, amount_cents=1_250_000),
        ),
        meter_before_sub=0,
        meter_after_sub=0,
        reserve_before_sub=0,
        reserve_after_sub=0,
        reseed_sub=0,
        meter_seq=9,
        occurred_at="2026-11-29T12:00:00Z",
    )
    hit = event_output("p.awards", "t1", split, "h1")
    event = Output("p.events", "t1", b'{"type":"wager_placed"}', "e1")
    refused = EventRejected(
        event_id="e9",
        table_id="t1",
        event_type="round_opened",
        reason="unknown table 't9'",
        occurred_at="2026-11-29T12:00:00Z",
    )
    rejection = event_output("p.events", "t1", refused, "rejected@p.table-events:0:9")
    outputs = [event, award, hit, rejection]
    metrics.record("round", ["accepted", "accepted", "rejected"], outputs, 0.02)
    text = generate_latest(metrics.registry).decode()
    assert 'jackpot_inputs_total{outcome="accepted",processor="round"} 2.0' in text
    assert 'jackpot_inputs_total{outcome="rejected",processor="round"} 1.0' in text
    assert 'jackpot_outputs_total{processor="round"} 4.0' in text
    assert 'jackpot_awards_total{kind="fixed"} 1.0' in text
    assert 'jackpot_awards_total{kind="progressive"} 2.0' in text  # one per player paid
    assert 'jackpot_awarded_dollars_total{kind="progressive"} 25000.01' in text
    assert 'jackpot_awarded_dollars_total{kind="fixed"} 10000.0' in text
    assert 'jackpot_rejections_total{reason_class="unknown_table"} 1.0' in text
    assert 'jackpot_processing_seconds_count{processor="round"} 1.0' in text
    assert 'jackpot_consumer_lag{partition="0",topic="p.table-events"} 7.0' in text
    lags[0] = ("p.table-events", 0, 2)  # the next scrape sees the new figure
    text = generate_latest(metrics.registry).decode()
    assert 'jackpot_consumer_lag{partition="0",topic="p.table-events"} 2.0' in text


def test_assigned_partitions_are_read_per_topic_at_scrape_time() -> None:
    metrics = WorkerMetrics()
    owned = [("p.table-events", 0), ("p.meter-claims", 2)]
    metrics.assigned.sources.append(lambda: owned)
    text = generate_latest(metrics.registry).decode()
    assert 'jackpot_worker_assigned_partitions{topic="p.table-events"} 0.0' in text
    assert 'jackpot_worker_assigned_partitions{topic="p.meter-claims"} 2.0' in text
    owned[0] = ("p.table-events", 3)  # a rebalance gave it three: the next scrape says so
    text = generate_latest(metrics.registry).decode()
    assert 'jackpot_worker_assigned_partitions{topic="p.table-events"} 3.0' in text
    metrics.assigned.sources.clear()  # between loops (a rebuild): nothing owned, no series
    assert "jackpot_worker_assigned_partitions{" not in generate_latest(metrics.registry).decode()
