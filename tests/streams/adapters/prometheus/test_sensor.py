"""The metrics sensor: counts from durable batches, gauges from state, and bounded label values."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from controller.config.floor import load_floor_config
from streams.adapters.memory import MemoryLog
from streams.adapters.prometheus.sensor import REASON_CLASSES, MetricsSensor, reason_class
from streams.cli.simulate import sim_tables
from streams.embedded.engine import EmbeddedController
from streams.http.tokens import Principal
from streams.sim.floor import AKQ_SPADES as FORCED_AKQ
from streams.sim.floor import DEALER_ROYAL, FloorSimulator, ForcedHands
from tests.streams.http.support import AKQ_SPADES, CONFIG, event, full_round, opening
from tests.streams.liveness.test_tracker import heartbeat

EPOCH = "2026-11-29T23:00:00Z"  # after the events: the controller refuses future-dated ones


def controller_with_sensor() -> tuple[EmbeddedController, MetricsSensor]:
    log = MemoryLog()
    controller = EmbeddedController(log, log, clock=lambda: EPOCH)
    controller.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    sensor = MetricsSensor()
    sensor.attach(controller)
    return controller, sensor


def value(sensor: MetricsSensor, name: str, **labels: str) -> float | None:
    return sensor.registry.get_sample_value(name, labels)


def test_gauges_are_set_from_the_state_at_attach_and_after_each_batch() -> None:
    controller, sensor = controller_with_sensor()
    assert value(sensor, "jackpot_meter_amount_dollars", meter="tcp-progressive") == 1000.0
    controller.submit(full_round())
    assert value(sensor, "jackpot_meter_amount_dollars", meter="tcp-progressive") == 1000.14
    assert value(sensor, "jackpot_contributions_total", meter="tcp-progressive") == 1.0
    assert value(sensor, "jackpot_contributed_dollars_total", meter="tcp-progressive") == 0.14
    assert value(sensor, "jackpot_log_position") == controller.position


def test_awards_and_rejections_are_counted_by_kind_and_class() -> None:
    controller, sensor = controller_with_sensor()
    controller.submit(full_round(AKQ_SPADES))
    assert value(sensor, "jackpot_awards_total", kind="progressive") == 1.0
    assert value(sensor, "jackpot_awarded_dollars_total", kind="progressive") == 1000.14
    # the meter was paid and reset to its reseed (649a.12(e)(3)): $1,000
    assert value(sensor, "jackpot_meter_amount_dollars", meter="tcp-progressive") == 1000.0
    controller.submit([event(20, "round_opened", table="tcp-99", game="three_card_poker")])
    controller.record_rejection("{", "body: malformed JSON")
    assert value(sensor, "jackpot_rejections_total", reason_class="unknown_table") == 1.0
    assert value(sensor, "jackpot_rejections_total", reason_class="schema") == 1.0


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        ([event(1, "wager_placed", seat=1, wager="ante", amount="1.005")], "schema"),
        ([{"type": "nothing"}], "schema"),
        (["not an object"], "schema"),
        ([event(1, "round_opened", table="nope", game="three_card_poker")], "unknown_table"),
        ([*opening(), {**event(2, "wagers_locked"), "event_id": "x"}], "sequence"),
        ([*opening(), event(9, "wager_placed", seat=2, wager="ante", amount="1.00")], "state"),
        ([*opening(), event(9, "decision", seat=1, action="raise", amount="1.00")], "rules"),
        ([*opening(), event(9, "decision", seat=3, action="play", amount="1.00")], "rules"),
        ([event(1, "round_opened", game="lunar_poker")], "rules"),
        ([*opening(), event(9, "wager_placed", seat=9, wager="ante", amount="1.00")], "state"),
        (
            [
                *opening(),
                event(9, "decision", seat=1, action="play", amount="1.00"),
                event(10, "round_settled", dealer=["As"], community=[], seats={"1": ["2c"]}),
            ],
            "cards",
        ),
    ],
)
def test_real_rejections_fall_into_the_fixed_classes(events: list[object], expected: str) -> None:
    controller, sensor = controller_with_sensor()
    outcomes = controller.submit(events)
    assert outcomes[-1].status == "rejected", outcomes[-1]
    assert reason_class(outcomes[-1].reason) == expected, outcomes[-1].reason
    assert value(sensor, "jackpot_rejections_total", reason_class=expected) == 1.0


def test_operator_refusals_and_other_reasons() -> None:
    assert reason_class("anything at all", "PayHit") == "operator"
    assert reason_class("body: 9 bytes is over the limit of 8 bytes") == "size"
    assert reason_class("something nobody foresaw") == "other"
    expected = {"schema", "sequence", "duplicate", "state", "cards", "token_scope", "other"}
    assert set(REASON_CLASSES) >= expected


@pytest.mark.parametrize("table", ["tcp-2", "tcp-99"])  # configured or not: the binding comes first
def test_an_item_for_a_table_outside_the_tokens_binding_has_a_class_of_its_own(table: str) -> None:
    controller, sensor = controller_with_sensor()
    bound = Principal("cards-device", "table_device", frozenset({"tcp-1"}))
    items = [event(1, "round_opened", table=table, game="three_card_poker"), heartbeat(table)]
    outcomes = controller.submit(items, bound.refusal)
    assert [o.status for o in outcomes] == ["rejected", "rejected"]
    # A token named "cards-device" must not land in the "cards" class.
    assert {reason_class(o.reason) for o in outcomes} == {"token_scope"}
    assert value(sensor, "jackpot_rejections_total", reason_class="token_scope") == 2.0


def test_label_values_stay_bounded_on_a_long_noisy_run() -> None:
    controller, sensor = controller_with_sensor()
    config = load_floor_config(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    forced = ForcedHands(probability=0.2, deals=(FORCED_AKQ, DEALER_ROYAL))
    start = datetime(2026, 11, 29, 16, 0, tzinfo=UTC)
    simulator = FloorSimulator(sim_tables(config), random.Random(7), start, forced_hands=forced)
    events = list(simulator.rounds(4))
    noise = [{**e, "event_id": f"noise-{n}"} for n, e in enumerate(events[::7])]
    outcomes = controller.submit([*events, *noise, [1], {"seat": "x" * 500}])
    assert {o.status for o in outcomes} == {"accepted", "rejected"}
    allowed = set(config.meters) | set(config.tables) | set(REASON_CLASSES)  # configured ids only
    allowed |= {"progressive", "fixed", "envy", "accepted", "duplicate", "rejected"}
    for metric in sensor.registry.collect():
        for sample in metric.samples:
            values = {v for k, v in sample.labels.items() if k != "le"}  # histogram buckets
            assert values <= allowed, sample
    awards = value(sensor, "jackpot_awards_total", kind="progressive")
    assert awards is not None
    assert awards > 0


def test_the_overflow_gauge_shows_what_was_carried_above_the_ceiling() -> None:
    # NY 5320.8 / NJ 13:69E-1.39A: $1,000.00 + 14 cents on a $1,000.10 ceiling: 4 cents carried.
    plain = '[meters.tcp-progressive]\nprogressive = "pa-649a12e-A"\n'
    text = CONFIG.read_text(encoding="utf-8")
    assert plain in text
    log = MemoryLog()
    controller = EmbeddedController(log, log, clock=lambda: EPOCH)
    controller.start(text.replace(plain, plain + 'ceiling = "1000.10"\n'), str(CONFIG))
    sensor = MetricsSensor()
    sensor.attach(controller)
    assert value(sensor, "jackpot_meter_overflow_dollars", meter="tcp-progressive") == 0.0
    controller.submit(full_round())
    assert value(sensor, "jackpot_meter_amount_dollars", meter="tcp-progressive") == 1000.10
    assert value(sensor, "jackpot_meter_overflow_dollars", meter="tcp-progressive") == 0.04
