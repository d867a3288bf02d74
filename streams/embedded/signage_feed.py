"""The signage feed: keeps the meter read model (Redis, or memory) in step with the controller.

The embedded engine calls `SignageFeed.listener` with each durable batch. The feed publishes the
*current* values of every meter the batch touched, each with its `MeterState.seq`; the read model's
seq guard makes a late, repeated or out-of-order publication harmless, so the feed never needs to
replay events, only the state.

Signage is never allowed to stop processing (issue 4). When a publish raises `StoreUnavailable`,
the meters not yet published stay *dirty* and the listener returns at once; for ``retry_after``
seconds the listener only marks meters dirty, so an outage costs ingest one failed connection per
interval, not one per batch. `flush` (called on each later batch, and by `run_flusher` on a timer)
republishes the dirty meters. After an outage it republishes *every* meter, because a Redis that
comes back may have lost its data (no persistence, a fail-over to a stale replica) and a sign that
reconnects re-reads the hashes. A Redis restarted empty between two batches raises nothing (the
client simply reconnects), so `run_flusher` also reads one meter back each interval (`check_one`,
each meter in turn) and republishes every meter if Redis holds it older than the state or not at
all; and it republishes everything now and then (``resync_every``). The seq guard makes a
republish of unchanged values a no-op that notifies nobody.

Thread safety: the listener runs under the engine's lock; the timer runs on its own thread. One
publisher at a time holds ``_publishing``; the listener only tries it without waiting (if a flush is
running, the meters it marked dirty are picked up by that flush's next pass or the next one).
A meter is cleared from the dirty set only if the state still has the seq that was published.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence

from controller.model.errors import StoreUnavailable
from controller.model.events import Event, MeterEvent
from controller.model.state import FloorState, MeterState
from controller.model.views import meter_view
from streams.clock import utc_now
from streams.ports import MeterReadModel

FieldsOf = Callable[[MeterState], dict[str, str]]
MAX_PASSES = 3  # a flush re-reads the dirty set this often if batches keep marking meters


def meter_fields(meter: MeterState) -> dict[str, str]:
    """What a sign reads: `controller.model.views.meter_view` as strings, and ``status`` "live"."""
    fields = {name: str(value) for name, value in meter_view(meter).items()}
    fields["status"] = "live"
    return fields


def touched_meters(events: Iterable[Event]) -> set[str]:
    """The meters whose values a batch changed (meter events carry ``meter_seq``)."""
    return {event.meter_id for event in events if isinstance(event, MeterEvent)}


class SignageFeed:
    """Publishes touched meters to a `MeterReadModel`; survives its outages (see module doc)."""

    def __init__(
        self,
        read_model: MeterReadModel,
        state_of: Callable[[], FloorState],
        *,
        fields_of: FieldsOf = meter_fields,
        clock: Callable[[], str] = utc_now,
        monotonic: Callable[[], float] = time.monotonic,
        retry_after: float = 1.0,
        on_dirty: Callable[[int], None] | None = None,
    ) -> None:
        """``fields_of`` gives a meter's fields (the feed adds ``seq`` and ``updated_at``, the
        ``clock`` time of publication); ``on_dirty`` is told the dirty count after each attempt
        (the ``jackpot_signage_dirty_meters`` gauge)."""
        self._model = read_model
        self._state_of = state_of
        self._fields_of = fields_of
        self._clock = clock
        self._monotonic = monotonic
        self._retry_after = retry_after
        self._on_dirty = on_dirty
        self._dirty: set[str] = set()
        #: per meter, how many batches marked it: a mark after a pass began keeps it dirty
        self._marks: dict[str, int] = {}
        self._dirty_lock = threading.Lock()  # held only for set operations, never across I/O
        self._publishing = threading.Lock()
        self._next_try = 0.0
        self._lost = False  # a publish failed since the last full republish
        self._probe = 0  # the next meter `check_one` reads back

    @property
    def dirty_count(self) -> int:
        """Meters whose newest values the read model may not hold."""
        with self._dirty_lock:
            return len(self._dirty)

    def listener(self, events: Sequence[Event]) -> None:
        """For `EmbeddedController.subscribe`: publish what the batch touched; never raises
        `StoreUnavailable` and never waits for a flush running on another thread."""
        touched = touched_meters(events)
        with self._dirty_lock:
            self._dirty |= touched
            for meter_id in touched:
                self._marks[meter_id] = self._marks.get(meter_id, 0) + 1
        if self._monotonic() < self._next_try:
            self._report()
            return
        self._drain(blocking=False)

    def flush(self) -> int:
        """Republish the dirty meters (all of them after an outage); the count still dirty."""
        self._drain(blocking=True)
        return self.dirty_count

    def republish_all(self) -> int:
        """Mark every meter dirty and flush (at start-up, and now and then against data loss)."""
        with self._dirty_lock:
            self._dirty |= set(self._state_of().meters)
        return self.flush()

    def check_one(self) -> bool:
        """Read back one clean meter (each in turn); if the read model holds it older than the state
        or not at all, it lost data without an error: republish every meter. True if it did."""
        state = self._state_of()
        ids = sorted(state.meters)
        if not ids:
            return False
        meter = state.meters[ids[self._probe % len(ids)]]
        self._probe += 1
        with self._dirty_lock:
            if self._lost or meter.meter_id in self._dirty:
                return False  # not published yet: nothing to judge by
        try:
            shown = self._model.read(meter.meter_id)
        except StoreUnavailable:
            return False  # an outage: the next publish fails and starts the back-off
        if shown is not None and int(shown.get("seq", meter.seq)) >= meter.seq:
            return False  # (a model that keeps no seq is judged by presence)
        self.republish_all()
        return True

    def _drain(self, *, blocking: bool) -> None:
        if not self._publishing.acquire(blocking=blocking):
            self._report()
            return
        try:
            for _ in range(MAX_PASSES):
                if not self._pass():
                    break
        finally:
            self._publishing.release()
            self._report()

    def _pass(self) -> bool:
        """One pass over the dirty set; True if it all went out and more may have been marked."""
        with self._dirty_lock:
            seen = dict(self._marks)  # before the state is read: a later batch marks past it
        state = self._state_of()
        with self._dirty_lock:
            if self._lost:
                self._dirty |= set(state.meters)
            pending = sorted(self._dirty)
        if not pending:
            return False
        for meter_id in pending:
            meter = state.meters.get(meter_id)
            if meter is None:  # not (or no longer) configured: nothing to show
                self._clear(meter_id, None, seen)
                continue
            fields = {**self._fields_of(meter), "updated_at": self._clock()}
            try:
                self._model.publish(meter_id, meter.seq, fields)
            except StoreUnavailable:
                self._lost = True
                self._next_try = self._monotonic() + self._retry_after
                return False
            self._clear(meter_id, meter.seq, seen)
        self._lost, self._next_try = False, 0.0  # it answers again: no more back-off
        return True

    def _clear(self, meter_id: str, published_seq: int | None, seen: dict[str, int]) -> None:
        """Unmark ``meter_id`` unless the state moved past what was published or a batch marked
        it since the pass began (``seen``: the marks then).

        The state is read *outside* ``_dirty_lock``: the engine calls `listener` holding its own
        lock, and reading the state takes that lock, so reading it under ``_dirty_lock`` was a
        lock-order inversion (a flush and a batch each waited for the other's lock forever: a
        hung controller). A batch that moves the meter after this read marks it, and the marks
        keep it dirty."""
        current = self._state_of().meters.get(meter_id)
        with self._dirty_lock:
            moved = current is not None and current.seq != published_seq
            marked = self._marks.get(meter_id, 0) != seen.get(meter_id, 0)
            if not moved and not marked:
                self._dirty.discard(meter_id)

    def _report(self) -> None:
        if self._on_dirty is not None:
            self._on_dirty(self.dirty_count)


def run_flusher(
    feed: SignageFeed,
    stop: threading.Event,
    *,
    interval: float = 1.0,
    resync_every: float = 60.0,
    monotonic: Callable[[], float] = time.monotonic,
) -> None:
    """The service's timer (run it in a daemon thread): flush and read one meter back every
    ``interval`` seconds, republish every meter every ``resync_every`` seconds, until ``stop``."""
    next_resync = monotonic() + resync_every
    while not stop.wait(interval):
        if monotonic() >= next_resync:
            feed.republish_all()
            next_resync = monotonic() + resync_every
        else:
            feed.flush()
            feed.check_one()
