"""The live feed: durable batches fanned out to signs and surveillance pages over SSE queues.

Sources. On the embedded engine `LiveFeed.attach` subscribes to the controller: each durable
batch becomes meter rows, hit notices and activity rows (`streams.live.activity`). On the Kafka
engine `streams.live.redis_source.run_redis_pump` feeds it from the Redis read model; a hit is seen
there as a rise of the meter's ``hits`` count.

State kept: the latest row of every meter (a stream opens with that snapshot), the last
``recent`` activity rows, and every hit not yet paid (`streams.live.held`), so a pending hit never
drops out of surveillance however busy the floor is. `attach` fills them from the log's tail, so a
restarted controller shows recent activity at once.

Fan-out. Each open stream is a `Client` (`streams.live.client`, with `broadcast`): a client that
falls ``queue_limit`` messages behind is closed, so a stuck sign cannot make the controller hold
memory. The listener never raises into the engine: signage must not stop ingest.

Heartbeats are written by each stream (`streams.http.pages`) when it has been quiet, and only while
`LiveFeed.source_ok`: when the Redis source is lost the streams send a ``fault`` instead, and
every sign turns to its stale fault rather than show old numbers as live.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager

from controller.config.floor import FloorConfig
from controller.model.events import ConfigActivated, Event, ProgressiveHit
from controller.model.state import FloorState
from streams.clock import utc_now
from streams.codec import decode
from streams.embedded.engine import EmbeddedController
from streams.embedded.signage_feed import touched_meters
from streams.live.activity import Track, activity_rows, hit_notice, meter_row
from streams.live.alerts import ENVY_STORM_OVER, Row, classify_alerts, unexplained_moves
from streams.live.client import Client, Message, Signal, Topic, broadcast, sse
from streams.live.held import HeldActivity
from streams.live.playability import PlayabilityWatch
from streams.live.signs import LastHits, SignDisplay, sign_display, tables_meters
from streams.live.story import RoundStories
from streams.ports import EventLog

__all__ = ["Client", "LiveFeed", "Signal", "Topic", "sse"]
logger = logging.getLogger(__name__)


class LiveFeed:
    """Latest meters, recent activity and open hits; fans each change out to the clients."""

    def __init__(
        self,
        *,
        labels: Mapping[str, tuple[str, str]] | None = None,
        config: FloorConfig | None = None,
        clock: Callable[[], str] = utc_now,
        recent: int = 500,
        queue_limit: int = 1_000,
        envy_storm_over: int = ENVY_STORM_OVER,
    ) -> None:
        self._display = sign_display(config) if config is not None else SignDisplay()
        self._labels = dict(labels or self._display.labels)
        self._last_hits = LastHits()
        self.stories = RoundStories()
        self._clock = clock
        self._queue_limit = queue_limit
        self._envy_storm_over = envy_storm_over
        self._state_of: Callable[[], FloorState] = FloorState
        self._position_of: Callable[[], int] | None = None
        self._seen_position = 0
        self._lock = threading.Lock()
        self._clients: set[Client] = set()
        self._rows: dict[str, Row] = {}
        self._held = HeldActivity(recent)
        self._track: Track = {}
        self._amounts: dict[str, int] = {}
        self.source_ok = True
        self.source_problem = ""
        self.watch: PlayabilityWatch | None = None  # loss of communication (embedded engine)

    @classmethod
    def attach(cls, controller: EmbeddedController, *, backfill: int = 2_000) -> LiveFeed:
        """A feed subscribed to ``controller``, holding what its log's last ``backfill`` records
        show (a batch committed meanwhile is shown once: the position tells)."""
        feed = cls()
        # Configuration, meters and hits only: no table decoded after a restart (`partial_state`)
        feed._state_of = controller.partial_state
        feed._position_of = lambda: controller.position
        controller.subscribe(feed.listener)
        feed.backfill(controller.log, backfill)
        feed.watch = PlayabilityWatch(
            lambda: controller.liveness, lambda: controller.partial_state().config
        )
        return feed

    def backfill(self, log: EventLog, count: int) -> None:
        """Fill the activity buffer and open hits from the log's last ``count`` records."""
        with self._lock:
            records = list(log.read(after=max(0, log.head() - count)))
            state = self._state_of()
            self._show_config(state.config)
            events = [decode(r.payload) for r in records]
            self._digest(events, state, "", [r.received_at for r in records])
            self._seen_position = max([self._seen_position, *(r.position for r in records)])
            now = self._clock()
            self._rows = {
                m: meter_row(meter, self._labels, now) for m, meter in state.meters.items()
            }
            self._held.still_open(state.hits.values())  # pending since before the tail

    def listener(self, events: Sequence[Event]) -> None:
        """For `EmbeddedController.subscribe` (runs on the engine's thread; never raises)."""
        try:
            state = self._state_of()
            with self._lock:
                if self._position_of is not None:
                    position = self._position_of()
                    if position <= self._seen_position:
                        return
                    self._seen_position = position
                broadcast(self._clients, self._digest(events, state, received_at=self._clock()))
        except Exception:  # signage must never stop ingest; pages resync when they reconnect
            logger.exception("live feed: a batch could not be shown")

    def _show_config(self, config: FloorConfig | None) -> None:
        display = sign_display(config)
        if display.labels:
            self._display, self._labels = display, dict(display.labels)

    def _digest(
        self,
        events: Sequence[Event],
        state: FloorState,
        received_at: str,
        each: Sequence[str] = (),
    ) -> list[Message]:
        """Rows and messages for a batch; updates the kept state (call under the lock).
        ``received_at``: the controller's clock at the commit ("" for a backfill); ``each``: the
        receive time of each event where the log kept it (a backfill's records)."""
        touched = touched_meters(events)
        if any(isinstance(event, ConfigActivated) for event in events):
            self._show_config(state.config)
            touched |= set(state.meters)
        self.stories.add(events, received_at)
        stamps = each or [received_at] * len(events)
        rows = activity_rows(events, self._track, stamps)
        alerts = classify_alerts(events, envy_storm_over=self._envy_storm_over)
        amounts = {m: meter.amount_sub for m, meter in state.meters.items()}
        alerts += unexplained_moves(self._amounts, amounts, events)
        self._amounts = amounts
        self._track = {m: (meter.amount_sub, meter.seq) for m, meter in state.meters.items()}
        notices = [hit_notice(e, received_at) for e in events if isinstance(e, ProgressiveHit)]
        out: list[Message] = [
            ("meters", meter_id, sse(name, body))
            for meter_id, name, body in self._last_hits.take(notices, rows)
        ]
        now = self._clock()
        for meter_id in sorted(touched & set(state.meters)):
            row = meter_row(state.meters[meter_id], self._labels, now)
            self._rows[meter_id] = row
            out.append(("meters", meter_id, sse("meter", row)))
        for row in [*rows, *(alert.row() for alert in alerts)]:
            self._held.remember(row)
            out.append(("activity", "", sse("activity", row)))
        return out

    def put_meter(self, row: Row, hit: Row | None = None) -> bool:
        """Show a meter ``row`` from an outside source (and ``hit`` first, if it hit) unless the
        feed holds the same or a newer ``seq``; whether it was shown."""
        meter_id = str(row["meter_id"])
        with self._lock:
            old = self._rows.get(meter_id)
            if old is not None and _int(old["seq"]) >= _int(row["seq"]):
                return False
            out: list[Message] = [] if hit is None else [("meters", meter_id, sse("hit", hit))]
            if hit is not None:
                self._last_hits.hit(hit)
            self._rows[meter_id] = row
            out.append(("meters", meter_id, sse("meter", row)))
            broadcast(self._clients, out)
            return True

    def latest(self, meter_id: str) -> Row | None:
        """The meter's row as last shown, or None."""
        with self._lock:
            return self._rows.get(meter_id)

    def label(self, meter_id: str) -> tuple[str, str]:
        """The meter's title and subtitle on a sign."""
        return self._labels.get(meter_id, (meter_id.replace("-", " ").upper(), ""))

    def source_down(self, problem: str) -> None:
        """The source is lost: heartbeats stop, so signs turn stale rather than look live."""
        if self.source_ok:
            logger.warning("live feed: source lost: %s", problem)
        self.source_ok, self.source_problem = False, problem

    def source_up(self) -> None:
        """The source answers again (heartbeats resume)."""
        self.source_ok, self.source_problem = True, ""

    def meters_snapshot(self, meters: Sequence[str] | None = None) -> Row:
        """The rows of ``meters`` (all, in configuration order, when None)."""
        with self._lock:
            return self._meters_snapshot(meters)

    def activity_snapshot(self) -> Row:
        """The recent activity (oldest first) and every hit not yet paid."""
        with self._lock:
            return self._activity_snapshot()

    def _meters_snapshot(self, meters: Sequence[str] | None) -> Row:
        wanted = list(meters) if meters is not None else list(self._labels or self._rows)
        wanted += [] if meters is not None else sorted(set(self._rows) - set(wanted))
        rows = [self._rows[m] for m in wanted if m in self._rows]
        snapshot: Row = {"meters": rows, "venue": self._display.venue, **self._liveness()}
        snapshot["last_hits"] = self._last_hits.of(wanted)
        if self.watch is not None:  # each meter in play, or not (and where)
            statuses = self.watch.meters()
            snapshot["playability"] = {m: statuses[m] for m in wanted if m in statuses}
        return snapshot

    def _activity_snapshot(self) -> Row:
        return {**self._held.snapshot(), **self._liveness()}

    def _liveness(self) -> Row:
        return {"live": self.source_ok, "problem": self.source_problem}

    def meters_of_tables(self, tables: Sequence[str]) -> list[str]:
        """The meters linked to ``tables`` (configuration order); unknown tables add none."""
        with self._lock:
            return tables_meters(self._display, tables)

    def table_ids(self) -> frozenset[str]:
        """The configured tables."""
        with self._lock:
            return frozenset(self._display.links)

    def story(self, table_id: str, round_id: str) -> Row | None:
        """A round's events as held (`streams.live.story`), or None."""
        with self._lock:
            return self.stories.story(table_id, round_id)

    def meter_ids(self) -> frozenset[str]:
        """The meters the feed knows (configured, or seen from the source)."""
        with self._lock:
            return frozenset(self._labels) | frozenset(self._rows)

    def tick(self, *, force: bool = False) -> None:
        """Show what changed in playability (time-driven: the streams call this while they run;
        at most every half second unless ``force``): a ``playability`` message to signs, alert
        rows to surveillance."""
        if self.watch is None:
            return
        with self._lock:
            change = self.watch.tick(force=force)
            if change is None:
                return
            out: list[Message] = []
            if change.meters is not None:
                out.append(("meters", "", sse("playability", change.meters)))
            for row in change.alerts:
                self._held.remember(row)
                out.append(("activity", "", sse("activity", row)))
            broadcast(self._clients, out)

    def heartbeat(self) -> str:
        """The message a quiet stream sends so a sign can tell quiet from dead."""
        return sse("heartbeat", {"server_time": self._clock()})

    def fault(self) -> str:
        """What a stream sends instead of a heartbeat while the source is lost."""
        return sse("fault", {"reason": self.source_problem or "source lost"})

    @asynccontextmanager
    async def listen(
        self, topic: Topic, meters: Sequence[str] | None = None
    ) -> AsyncIterator[Client]:
        """A client for ``topic`` (and ``meters``, all when None) until the block ends. Its
        ``snapshot`` is taken as it is registered, under the lock that batches are shown under,
        so each later change reaches it exactly once."""
        wanted = frozenset(meters) if meters is not None else None
        self.tick(force=True)  # the snapshot shows playability as of now
        client = Client(asyncio.get_running_loop(), topic, wanted, self._queue_limit)
        with self._lock:
            self._clients.add(client)
            if topic == "meters":
                client.snapshot = self._meters_snapshot(meters)
            else:
                client.snapshot = self._activity_snapshot()
        try:
            yield client
        finally:
            with self._lock:
                self._clients.discard(client)


def _int(value: object) -> int:
    return value if isinstance(value, int) else int(str(value))
