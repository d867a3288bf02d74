"""The signage projector without Kafka: its fold equals `kafka_dump`'s, and it keeps a read model
in step through outages, data loss and a restart (the Kafka and Redis run is in
tests/integration/test_kafka_signage.py).

The events come from the embedded engine over a simulated floor with forced jackpot hands, so
every kind of meter event (seed, contribution, hit, reversal) is in them.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config.floor import load_floor_config
from controller.model.events import (
    ContributionRecorded,
    ContributionsReversed,
    MeterEvent,
    MeterSeeded,
    ProgressiveHit,
)
from controller.model.state import FloorState
from streams.adapters.memory import MemoryLog
from streams.adapters.prometheus.projector import SignageMetrics
from streams.cli import build_parser
from streams.cli.simulate import sim_tables
from streams.codec import decode, encode
from streams.embedded.engine import EmbeddedController
from streams.embedded.signage_feed import meter_fields
from streams.scaleout.dump import fold_events
from streams.scaleout.signage import handle
from streams.scaleout.signage_fold import MeterFold, Projector, Record, meter_event_of
from streams.sim.floor import AKQ_SPADES, COMMUNITY_ROYAL, FloorSimulator, ForcedHands
from tests.streams.embedded.test_signage_feed import FakeClock, FlakyModel

CONFIG = Path("examples/pa-three-card-poker.toml")
AT = "2026-11-29T12:00:00.000Z"


@cache
def embedded_run() -> tuple[FloorState, tuple[MeterEvent, ...], tuple[bytes, ...]]:
    """The embedded engine's final state, its meter events, and every payload of its log."""
    log = MemoryLog()
    engine = EmbeddedController(log, log)
    text = CONFIG.read_text(encoding="utf-8")
    engine.start(text, str(CONFIG))
    config = load_floor_config(text, str(CONFIG))
    forced = ForcedHands(probability=0.1, deals=(AKQ_SPADES, COMMUNITY_ROYAL))
    start = datetime(2026, 11, 29, 12, tzinfo=UTC)
    simulator = FloorSimulator(
        sim_tables(config), random.Random(11), start, void_rate=0.05, forced_hands=forced
    )
    raws = list(simulator.events(1_500))
    for i in range(0, len(raws), 20):
        engine.submit(raws[i : i + 20])
    payloads = tuple(r.payload for r in log.read())
    events = tuple(e for p in payloads if isinstance(e := decode(p), MeterEvent))
    return engine.state, events, payloads


def as_record(event: MeterEvent, offset: int = 0) -> Record:
    """A meter event as the meter processor writes it to the events topic."""
    return Record(0, offset, event.meter_id, f"{event.meter_id}@{event.meter_seq}", encode(event))


def test_the_run_has_every_kind_of_meter_event() -> None:
    _, events, _ = embedded_run()
    kinds = {type(e) for e in events}
    assert {MeterSeeded, ContributionRecorded, ContributionsReversed, ProgressiveHit} <= kinds
    assert len(events) > 500


def test_meter_records_are_recognised_and_nothing_else_is() -> None:
    state, events, payloads = embedded_run()
    meter_events = [e for e in events if e.meter_seq == 1]
    first = meter_events[0]
    assert meter_event_of(first.meter_id, f"{first.meter_id}@1", encode(first)) == first
    # the wrong seq in the id, the wrong key, or no id: not taken as this meter event
    assert meter_event_of(first.meter_id, f"{first.meter_id}@2", encode(first)) is None
    assert meter_event_of("other", "other@1", encode(first)) is None
    assert meter_event_of(first.meter_id, "", encode(first)) is None
    assert meter_event_of(first.meter_id, f"{first.meter_id}@x1", encode(first)) is None
    # a table event whose id merely looks like a meter event's id is decoded and passed over
    table_payload = next(p for p in payloads if b'"type":"wager_placed"' in p)
    assert meter_event_of("tcp-1", "tcp-1@7", table_payload) is None
    assert meter_event_of("tcp-1", "tcp-1@7", b"not json") is None
    # other records are passed over without decoding (the payload is never looked at)
    assert meter_event_of("tcp-1", "evt-123", b"not json") is None
    assert state.meters  # the floor has meters


def test_held_events_wait_for_the_gap_and_duplicates_are_passed_over() -> None:
    _, events, _ = embedded_run()
    meter_id = events[0].meter_id
    one, two, three = [e for e in events if e.meter_id == meter_id][:3]
    fold = MeterFold()
    assert fold.take(three) == ("held", [])
    assert fold.take(three) == ("duplicate", [])
    assert fold.held == 1
    assert fold.meters.get(meter_id) is None  # nothing shown before the first event
    assert fold.take(one) == ("applied", [one])
    assert fold.take(two) == ("applied", [two, three])
    assert fold.held == 0
    assert fold.take(two) == ("duplicate", [])
    assert fold.meters[meter_id].seq == 3


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False), st.floats(0.0, 0.3))
def test_the_fold_equals_kafka_dumps_fold_in_any_delivery_order(
    rng: random.Random, repeat: float
) -> None:
    """Meters interleaved and shuffled within a window, some records delivered twice (a
    redelivered input): the incremental fold equals `kafka_dump.fold_events` and the engine."""
    state, events, _ = embedded_run()
    delivered = list(events)
    for i in range(len(delivered) - 1, 0, -1):  # a shuffle that moves records a little
        j = max(0, i - rng.randrange(8))
        delivered[i], delivered[j] = delivered[j], delivered[i]
    delivered += [e for e in events if rng.random() < repeat]
    fold = MeterFold()
    for event in delivered:
        fold.take(event)
    pairs = [(f"{e.meter_id}@{e.meter_seq}", encode(e)) for e in delivered]
    assert dict(fold.meters) == fold_events(pairs).meters == dict(state.meters)
    assert fold.held == 0


def test_dropping_partitions_forgets_their_meters_only() -> None:
    _, events, _ = embedded_run()
    fold = MeterFold()
    for event in events:
        fold.take(event, partition=hash(event.meter_id) % 2)
    kept = {m for m in fold.meters if hash(m) % 2 == 1}
    fold.drop_partitions({0})
    assert set(fold.meters) == kept


def projector(
    model: FlakyModel, clock: FakeClock, resync_every: float = 1_000.0
) -> tuple[Projector, SignageMetrics]:
    state, _, _ = embedded_run()
    metrics = SignageMetrics()
    made = Projector(
        model,
        state.meters,
        metrics,
        resync_every=resync_every,
        clock=lambda: AT,
        monotonic=clock,
    )
    return made, metrics


def feed(made: Projector, events: tuple[MeterEvent, ...], size: int = 50) -> None:
    for start in range(0, len(events), size):
        made.take([as_record(e, start) for e in events[start : start + size]])


def assert_shows(model: FlakyModel, state: FloorState) -> None:
    """Every meter's hash is the embedded engine's for the same state (`meter_fields`)."""
    for meter_id, meter in state.meters.items():
        assert model.read(meter_id) == {**meter_fields(meter), "updated_at": AT}, meter_id


def test_each_batch_publishes_what_the_embedded_engine_publishes() -> None:
    state, events, _ = embedded_run()
    model, clock = FlakyModel(), FakeClock()
    made, metrics = projector(model, clock)
    feed(made, events)
    assert_shows(model, state)
    assert made.clean
    assert metrics.records.labels("applied")._value.get() == len(events)


def test_an_outage_degrades_folding_goes_on_and_every_meter_is_republished() -> None:
    state, events, _ = embedded_run()
    model, clock = FlakyModel(), FakeClock()
    made, metrics = projector(model, clock)
    half = len(events) // 2
    feed(made, events[:half])
    model.down = True
    feed(made, events[half:])  # never raises
    made.tick()
    assert made.model.degraded
    assert not made.clean
    assert metrics.degraded._value.get() == 1
    assert dict(made.fold.meters) == dict(state.meters)  # the fold went on
    model.restart()  # back, and empty
    clock.now += 1.5
    made.tick()
    assert_shows(model, state)
    assert made.clean
    assert metrics.degraded._value.get() == 0
    assert metrics.failures._value.get() >= 1


def test_a_redis_that_lost_its_data_while_idle_is_refilled_by_the_read_back() -> None:
    state, events, _ = embedded_run()
    model, clock = FlakyModel(), FakeClock()
    made, metrics = projector(model, clock)
    feed(made, events)
    model.restart()  # nothing raised: only a read-back can tell
    made.tick()
    assert metrics.held._value.get() == 0
    assert_shows(model, state)
    assert metrics.republishes.labels("lost")._value.get() == 1
    made.tick()  # all there: nothing more
    assert metrics.republishes.labels("lost")._value.get() == 1


def test_holding_folds_without_publishing_then_publishes_every_meter() -> None:
    state, events, _ = embedded_run()
    model, clock = FlakyModel(), FakeClock()
    made, _ = projector(model, clock)
    made.holding = True
    feed(made, events)
    made.tick()
    assert model.calls == 0
    assert not made.clean
    made.release()
    assert_shows(model, state)
    assert model.calls == len(state.meters)


def test_a_restarted_projector_never_moves_a_sign_backwards() -> None:
    """A second projector refolding from the start publishes older values: the seq guard keeps
    the newer ones, and its later publications are the same as the first's."""
    state, events, _ = embedded_run()
    model, clock = FlakyModel(), FakeClock()
    first, _ = projector(model, clock)
    feed(first, events)
    second, _ = projector(model, clock)
    feed(second, events[: len(events) // 3])
    assert_shows(model, state)
    feed(second, events[len(events) // 3 :])
    assert_shows(model, state)


def test_a_periodic_resync_republishes_every_meter() -> None:
    _, events, _ = embedded_run()
    model, clock = FlakyModel(), FakeClock()
    made, metrics = projector(model, clock, resync_every=5.0)
    feed(made, events)
    made.tick()
    assert metrics.republishes.labels("resync")._value.get() == 0
    clock.now += 6.0
    made.tick()
    assert metrics.republishes.labels("resync")._value.get() == 1


def test_the_subcommand_is_registered_and_needs_redis(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    args = build_parser().parse_args(["kafka", "signage", "--prefix", "p", "--config", str(CONFIG)])
    assert args.handler is handle
    assert handle(args) == 2
    assert "--redis" in capsys.readouterr().err
