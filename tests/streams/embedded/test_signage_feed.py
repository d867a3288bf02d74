"""The signage feed over the in-memory read model: in step with the engine, and outage-proof.

`FlakyModel` is the twin with an off switch: while down, every publish raises `StoreUnavailable`
(as `streams.adapters.redis.read_model` does when Redis is away), and `restart` loses everything (a
Redis without
persistence). The same outage runs against a real Redis in tests/integration.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from immutables import Map

from controller.config.floor import load_floor_config
from controller.model.errors import StoreUnavailable
from controller.model.events import MeterSeeded
from controller.model.state import FloorState, MeterState
from streams.adapters.memory import MemoryLog, MemoryReadModel
from streams.cli.simulate import sim_tables
from streams.embedded.engine import EmbeddedController
from streams.embedded.signage_feed import SignageFeed, meter_fields, run_flusher, touched_meters
from streams.sim.floor import AKQ_SPADES, COMMUNITY_ROYAL, FloorSimulator, ForcedHands

CONFIG = Path("examples/pa-three-card-poker.toml")
AT = "2026-11-29T12:00:00.000Z"


class FlakyModel:
    """`MemoryReadModel` that can be down, and that forgets everything when restarted."""

    def __init__(self) -> None:
        self.inner = MemoryReadModel()
        self.down = False
        self.calls = 0

    def publish(self, meter_id: str, seq: int, fields: dict[str, str]) -> bool:
        self.calls += 1
        if self.down:
            msg = "read model down (test)"
            raise StoreUnavailable(msg)
        return self.inner.publish(meter_id, seq, fields)

    def read(self, meter_id: str) -> dict[str, str] | None:
        return self.inner.read(meter_id)

    def restart(self) -> None:
        self.inner, self.down = MemoryReadModel(), False


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def expected(state: FloorState, meter_id: str) -> dict[str, str]:
    meter = state.meters[meter_id]
    return {**meter_fields(meter), "updated_at": AT}


def assert_in_step(model: FlakyModel, state: FloorState) -> None:
    assert state.meters, "the floor has meters"
    for meter_id in state.meters:
        assert model.read(meter_id) == expected(state, meter_id), meter_id


def floor(
    model: FlakyModel, clock: FakeClock, dirty_seen: list[int] | None = None
) -> tuple[EmbeddedController, SignageFeed, FloorSimulator]:
    log = MemoryLog()
    engine = EmbeddedController(log, log)
    seen = dirty_seen if dirty_seen is not None else []
    feed = SignageFeed(
        model, lambda: engine.state, clock=lambda: AT, monotonic=clock, on_dirty=seen.append
    )
    engine.subscribe(feed.listener)
    text = CONFIG.read_text(encoding="utf-8")
    engine.start(text, str(CONFIG))
    config = load_floor_config(text, str(CONFIG))
    forced = ForcedHands(probability=0.1, deals=(AKQ_SPADES, COMMUNITY_ROYAL))
    start = datetime(2026, 11, 29, 12, tzinfo=UTC)
    simulator = FloorSimulator(sim_tables(config), random.Random(5), start, forced_hands=forced)
    return engine, feed, simulator


def ingest(engine: EmbeddedController, simulator: FloorSimulator, events: int) -> None:
    raws = list(simulator.events(events))
    for i in range(0, len(raws), 10):
        outcomes = engine.submit(raws[i : i + 10])
        assert {o.status for o in outcomes} == {"accepted"}


def test_each_batch_publishes_the_touched_meters_current_values() -> None:
    model, clock = FlakyModel(), FakeClock()
    engine, feed, simulator = floor(model, clock)
    assert_in_step(model, engine.state)  # the configuration's seeding is a batch too
    ingest(engine, simulator, 300)
    assert_in_step(model, engine.state)
    assert feed.dirty_count == 0


def test_an_outage_never_stops_ingest_and_a_flush_catches_up() -> None:
    model, clock, dirty_seen = FlakyModel(), FakeClock(), list[int]()
    engine, feed, simulator = floor(model, clock, dirty_seen)
    ingest(engine, simulator, 100)
    model.down = True
    ingest(engine, simulator, 400)  # never raises: signage is not allowed to stop processing
    assert feed.dirty_count > 0
    assert dirty_seen[-1] == feed.dirty_count
    model.restart()  # back, and empty
    assert feed.flush() == 0
    assert_in_step(model, engine.state)
    assert dirty_seen[-1] == 0
    ingest(engine, simulator, 100)  # a good flush ends the back-off: batches publish again
    assert_in_step(model, engine.state)


def test_while_backing_off_batches_only_mark_meters_dirty() -> None:
    model, clock = FlakyModel(), FakeClock()
    engine, feed, simulator = floor(model, clock)
    model.down = True
    assert feed.republish_all() == len(engine.state.meters)  # the failure starts the back-off
    calls = model.calls
    ingest(engine, simulator, 200)
    assert model.calls == calls  # no attempt at all during the back-off
    model.down = False
    clock.now += 1.5
    ingest(engine, simulator, 10)  # the first batch after it publishes everything
    assert feed.dirty_count == 0
    assert_in_step(model, engine.state)


def test_a_meter_that_moved_during_its_publish_stays_dirty() -> None:
    meters: dict[str, MeterState] = {"m": MeterState(meter_id="m", amount_sub=5, seq=1)}

    def state_of() -> FloorState:
        return FloorState(meters=Map(meters))

    class MovingModel(MemoryReadModel):
        def publish(self, meter_id: str, seq: int, fields: dict[str, str]) -> bool:
            stored = super().publish(meter_id, seq, fields)
            if seq == 1:  # another batch moves the meter while this publish is on the wire
                meters["m"] = MeterState(meter_id="m", amount_sub=9, seq=2)
            return stored

    model = MovingModel()
    feed = SignageFeed(model, state_of, clock=lambda: AT)
    assert feed.republish_all() == 0  # a second pass of the same flush sent seq 2
    assert model.read("m") == {**meter_fields(meters["m"]), "updated_at": AT}


def test_a_flush_and_a_batch_never_wait_for_each_other() -> None:
    """The engine calls the listener holding its lock; reading the state takes that lock. A flush
    that read the state while holding the feed's own lock deadlocked with a batch (seen in CI: a
    `jackpot serve` stopped answering). Here the batch takes the engine's lock exactly while the
    flush clears the meter it just published; both must finish, and the batch's value go out."""
    engine = threading.Lock()
    meters: dict[str, MeterState] = {"m": MeterState(meter_id="m", amount_sub=5, seq=1)}
    published, clearing, batch_holds_engine = (
        threading.Event(),
        threading.Event(),
        threading.Event(),
    )

    def state_of() -> FloorState:
        if threading.current_thread().name == "flusher" and published.is_set():
            published.clear()  # the read that clears the meter: let the batch in now
            clearing.set()
            batch_holds_engine.wait(5)
        with engine:
            return FloorState(meters=Map(meters))

    class SignalingModel(MemoryReadModel):
        def publish(self, meter_id: str, seq: int, fields: dict[str, str]) -> bool:
            stored = super().publish(meter_id, seq, fields)
            published.set()
            return stored

    model = SignalingModel()
    feed = SignageFeed(model, state_of, clock=lambda: AT)

    def batch() -> None:
        clearing.wait(5)
        with engine:  # as EmbeddedController.submit: state first, then its listeners
            batch_holds_engine.set()
            meters["m"] = MeterState(meter_id="m", amount_sub=9, seq=2)
            feed.listener([MeterSeeded(meter_id="m", amount_sub=9, meter_seq=2, occurred_at=AT)])

    threads = [
        threading.Thread(target=feed.republish_all, name="flusher", daemon=True),
        threading.Thread(target=batch, name="batch", daemon=True),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert [thread.name for thread in threads if thread.is_alive()] == []
    assert feed.flush() == 0
    assert model.read("m") == {**meter_fields(meters["m"]), "updated_at": AT}


def test_a_touched_meter_that_is_not_in_the_state_is_dropped() -> None:
    model = MemoryReadModel()
    feed = SignageFeed(model, FloorState, clock=lambda: AT)
    seeded = MeterSeeded(meter_id="gone", amount_sub=1, meter_seq=1, occurred_at=AT)
    assert touched_meters([seeded]) == {"gone"}
    feed.listener([seeded])
    assert feed.dirty_count == 0
    assert model.read("gone") is None


def test_the_flusher_republishes_after_an_outage_and_resyncs_lost_data() -> None:
    model, clock = FlakyModel(), FakeClock()
    engine, feed, simulator = floor(model, clock)
    ingest(engine, simulator, 50)
    stop = threading.Event()
    ticks = FakeClock()
    flusher = threading.Thread(
        target=run_flusher,
        args=(feed, stop),
        kwargs={"interval": 0.01, "resync_every": 5.0, "monotonic": ticks},
        daemon=True,
    )
    flusher.start()
    try:
        model.down = True
        ingest(engine, simulator, 50)
        model.restart()
        _wait(lambda: feed.dirty_count == 0 and model.read("tcp-progressive") is not None)
        assert_in_step(model, engine.state)
        model.restart()  # lost its data between batches: nothing failed, nothing is dirty
        ticks.now += 6.0  # the periodic resync puts it back
        _wait(lambda: model.read("tcp-progressive") is not None)
        assert_in_step(model, engine.state)
    finally:
        stop.set()
        flusher.join(timeout=5)
    assert not flusher.is_alive()


def _wait(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)
