"""The signage feed notices a read model that lost its data without an error, within one tick.

A Redis restarted without persistence between two batches raises nothing: the client reconnects
and the next publish succeeds, so only the meters published after the restart came back, and the
others stayed missing until the periodic resync (60 s in `jackpot serve`). `SignageFeed.check_one`
reads one meter back each flusher tick and republishes every meter when it finds one missing or
older than the state. `FlakyModel.restart` is that restart, on the in-memory twin.
"""

from __future__ import annotations

import threading

from controller.model.errors import StoreUnavailable
from streams.embedded.signage_feed import run_flusher
from tests.streams.embedded.test_signage_feed import (
    FakeClock,
    FlakyModel,
    _wait,
    assert_in_step,
    floor,
    ingest,
)


class Counting(FlakyModel):
    """Counts reads too; ``read_fails`` makes a read raise as an unreachable Redis does."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.read_fails = False

    def read(self, meter_id: str) -> dict[str, str] | None:
        self.reads += 1
        if self.read_fails:
            msg = "read model down (test)"
            raise StoreUnavailable(msg)
        return super().read(meter_id)


def test_a_read_model_in_step_is_left_alone() -> None:
    model, clock = Counting(), FakeClock()
    engine, feed, simulator = floor(model, clock)
    ingest(engine, simulator, 200)
    calls = model.calls
    meters = len(engine.state.meters)
    assert not any(feed.check_one() for _ in range(2 * meters))
    assert model.calls == calls  # nothing republished
    assert model.reads == 2 * meters  # one read per check, every meter in turn


def test_a_wipe_between_batches_is_found_by_one_read_and_everything_republished() -> None:
    model, clock = Counting(), FakeClock()
    engine, feed, simulator = floor(model, clock)
    ingest(engine, simulator, 200)
    model.restart()  # empty again, and nothing failed
    ingest(engine, simulator, 10)  # republishes only what these events touched
    assert feed.dirty_count == 0
    missing = [m for m in engine.state.meters if model.read(m) is None]
    assert missing, "some meter was not touched by the last batch"
    found = [feed.check_one() for _ in engine.state.meters]
    assert found.count(True) == 1  # the first missing meter read back republished them all
    assert_in_step(model, engine.state)


def test_an_older_value_counts_as_lost_and_an_outage_is_left_to_the_publisher() -> None:
    model, clock = Counting(), FakeClock()
    engine, feed, simulator = floor(model, clock)
    ingest(engine, simulator, 200)
    old = {m: model.read(m) for m in engine.state.meters}
    ingest(engine, simulator, 300)
    model.restart()
    for meter_id, meter in engine.state.meters.items():  # a stale replica: older seqs
        fields = old[meter_id]
        assert fields is not None
        model.inner.publish(meter_id, meter.seq - 1, {**fields, "seq": str(meter.seq - 1)})
    model.read_fails = True
    assert not feed.check_one()  # unreachable: not judged, publishing finds the outage
    model.read_fails = False
    assert feed.check_one()
    assert_in_step(model, engine.state)


def test_the_flusher_restores_a_wiped_model_without_waiting_for_the_resync() -> None:
    model, clock = Counting(), FakeClock()
    engine, feed, simulator = floor(model, clock)
    ingest(engine, simulator, 100)
    stop = threading.Event()
    ticks = FakeClock()  # never moves: the periodic resync never comes
    flusher = threading.Thread(
        target=run_flusher,
        args=(feed, stop),
        kwargs={"interval": 0.01, "resync_every": 3600.0, "monotonic": ticks},
        daemon=True,
    )
    flusher.start()
    try:
        model.restart()
        _wait(lambda: all(model.read(m) is not None for m in engine.state.meters))
        assert_in_step(model, engine.state)
    finally:
        stop.set()
        flusher.join(timeout=5)
    assert not flusher.is_alive()
