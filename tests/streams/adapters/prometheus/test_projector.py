"""The signage projector's meter metrics (the Kafka engine's side of the names the embedded sensor
exports): the gauges equal the embedded engine's meters, none are exported while the projector
catches up after a start (an old value would read as a meter falling), and contributions are
counted once each, from the moment it is live."""

from __future__ import annotations

from collections import Counter

from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from controller.model.events import ContributionRecorded, MeterEvent
from streams.adapters.memory import MemoryReadModel
from streams.adapters.prometheus.projector import SignageMetrics
from streams.codec import encode
from streams.scaleout.signage_fold import Projector, Record
from tests.streams.adapters.test_outward_schemas import engine_run


def samples(metrics: SignageMetrics, name: str) -> dict[str, float]:
    """``name``'s samples by their ``meter`` label."""
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(generate_latest(metrics.registry).decode()):
        for sample in family.samples:
            if sample.name == name:
                found[sample.labels["meter"]] = sample.value
    return found


def records() -> list[Record]:
    """The engine's meter events as the events topic holds them (one partition, in order)."""
    events, _, _ = engine_run()
    meter_events = [e for e in events if isinstance(e, MeterEvent)]
    return [
        Record(0, offset, e.meter_id, f"{e.meter_id}@{e.meter_seq}", encode(e))
        for offset, e in enumerate(meter_events)
    ]


def test_live_gauges_equal_the_engines_meters_and_nothing_shows_while_catching_up() -> None:
    _, _, state = engine_run()
    metrics = SignageMetrics()
    projector = Projector(MemoryReadModel(), list(state.meters), metrics)
    every = records()
    half = len(every) // 2
    projector.holding = True  # as after a start, until the topic's end is reached
    projector.take(every[:half])
    assert samples(metrics, "jackpot_meter_amount_dollars") == {}
    assert samples(metrics, "jackpot_contributions_total") == {}
    projector.release()
    projector.take(every[half:])
    projector.take(every[half:])  # a redelivery: duplicates, counted nowhere
    amounts = samples(metrics, "jackpot_meter_amount_dollars")
    reserves = samples(metrics, "jackpot_meter_reserve_dollars")
    assert amounts == {m: meter.amount_sub / 100_000_000 for m, meter in state.meters.items()}
    assert reserves == {m: meter.reserve_sub / 100_000_000 for m, meter in state.meters.items()}
    events, _, _ = engine_run()
    live = [e for e in events if isinstance(e, MeterEvent)][half:]
    contributions = [e for e in live if isinstance(e, ContributionRecorded)]
    assert contributions, "the second half funds the meters"
    expected = Counter(e.meter_id for e in contributions)
    assert samples(metrics, "jackpot_contributions_total") == {
        m: float(n) for m, n in expected.items()
    }
    dollars = samples(metrics, "jackpot_contributed_dollars_total")
    for meter_id in expected:
        total = sum(e.primary_sub + e.reserve_sub for e in contributions if e.meter_id == meter_id)
        assert dollars[meter_id] == total / 100_000_000
