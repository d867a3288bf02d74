"""The liveness/playability watch on faust: ``<p>.liveness`` as the changelog of a GlobalTable.

The plain watch (`streams.scaleout.liveness.LivenessFeed`) assigns itself every partition of the
compacted liveness topic from the beginning and commits nothing. A faust agent cannot do that (it
joins a group that splits the partitions and resumes from committed offsets), but a faust
**GlobalTable** can: every member of its group is assigned every partition of the table's
changelog, recovers it from the beginning (the table lives in memory, so there is no stored
offset to resume from) and then keeps reading it as a standby; nothing is committed for a
changelog. The liveness topic *is* that changelog here (the round processor writes it; this app
never writes to it), and the table's `apply_changelog_batch` hands each record to the same
`LivenessWatch` (tracker and board publisher) as the plain feed, with the broker's stamp
(``LogAppendTime``, seconds in faust's message).

- **Ready** once faust's recovery has completed for the first time (every partition read up to
  the end it had at assignment): before that the board is not written, as with the plain feed.
- **read_committed**: the app runs on the read side's `ReadCommittedTransport`.
- **Buffers of one**: faust applies changelog records in buffers; a GlobalTable's standby buffer
  is one record (as ``app.GlobalTable`` sets it) so a heartbeat is noted when it arrives, and the
  recovery buffer is one too (faust's own advice against a recovery loop with several members).
- **Threads**: the app runs its own event loop in a thread of ``jackpot kafka signage``; the
  projector's loop ticks the board. One lock orders the watch's notes and its ticks.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import faust

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.read import text
from streams.adapters.kafka.security import active
from streams.scaleout.liveness import LivenessWatch, Sighting
from streams.scaleout.readside.transport import ReadSideApp

logger = logging.getLogger(__name__)
STOP_S = 15.0
#: How long the group may stay unsettled (the first recovery, or any later rebalance) before the
#: projector gives up: a faust assignment that fails is swallowed by aiokafka and the group never
#: settles; crash-only beats a silent hang.
SETTLE_S = 90.0


def sightings_of(events: Iterable[Any]) -> list[Sighting]:
    """The sightings in a batch of faust changelog events (a message's timestamp is seconds)."""
    out: list[Sighting] = []
    for event in events:
        message = event.message
        stamp_ms = round(float(message.timestamp) * 1000)
        out.append(Sighting(text(message.key), stamp_ms, message.partition, message.offset))
    return out


class SightingTable(faust.GlobalTable):
    """A GlobalTable that reports each changelog record it applies (`on_sightings`)."""

    on_sightings: Callable[[list[Sighting]], None] = staticmethod(lambda sightings: None)

    def _changelog_topic_name(self) -> str:
        # faust's assignor names a global table's changelog from the app id and table name,
        # not from the topic it was given: without this it assigns nothing (a KeyError that
        # aiokafka swallows, and the group never settles).
        name: str = self.changelog_topic.get_topic_name()
        return name

    def apply_changelog_batch(self, batch: Iterable[Any]) -> None:
        events = list(batch)
        self.on_sightings(sightings_of(events))
        super().apply_changelog_batch(events)


def build_app(
    bootstrap: str, topic: str, partitions: int, app_id: str, datadir: str
) -> tuple[Any, SightingTable]:
    """The faust app (no agent: the table's recovery and standby reading do the work)."""
    app = ReadSideApp(
        app_id,
        broker=f"kafka://{bootstrap}",
        broker_credentials=active().faust_credentials(),
        store="memory://",
        datadir=datadir,
        web_enabled=False,
        key_serializer="raw",  # the table's keys and values: the records as written
        value_serializer="raw",
        topic_replication_factor=1,
        consumer_auto_offset_reset="earliest",
        broker_session_timeout=6.0,
        broker_heartbeat_interval=2.0,
        topic_allow_declare=False,  # creates nothing: the liveness topic is provisioned
        # no on_leader timer, so no leader topic: the signage role may not read one, and under
        # ACLs the refused subscription stalled the table's recovery for good (issue 13)
        topic_disable_leader=True,
    )
    changelog = app.topic(
        topic, partitions=partitions, key_serializer="raw", value_serializer="raw"
    )
    table = SightingTable(
        app,
        name="liveness",
        changelog_topic=changelog,
        partitions=partitions,
        is_global=True,
        standby_buffer_size=1,
        recovery_buffer_size=1,
        synchronize_all_active_partitions=True,  # standby on every partition, always
        beacon=app.tables.beacon,
    )
    app.tables.add(table)
    return app, table


class FaustLivenessFeed:
    """The liveness topic through faust driving a `LivenessWatch`; the same face as the plain
    `streams.scaleout.liveness.LivenessFeed` for the projector's loop."""

    def __init__(
        self, bootstrap: str, topic: str, partitions: int, app_id: str, watch: LivenessWatch
    ) -> None:
        self.watch = watch
        self._args = (bootstrap, topic, partitions, app_id)
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="liveness-faust", daemon=True)
        self._unsettled_since: float | None = time.monotonic()

    @classmethod
    def open(
        cls, bootstrap: str, topic: str, partitions: int, app_id: str, watch: LivenessWatch
    ) -> FaustLivenessFeed:
        """Started: the app joins group ``app_id`` and recovers the topic in its thread."""
        feed = cls(bootstrap, topic, partitions, app_id, watch)
        feed._thread.start()
        return feed

    @property
    def ready(self) -> bool:
        """Whether faust's recovery of every partition has completed once."""
        return self._ready.is_set()

    def poll(self) -> int:
        """Nothing to poll (the app reads in its thread); raises what stopped the app, or
        StoreUnavailable when its group has not settled for `SETTLE_S`."""
        if self._failed is not None:
            raise self._failed
        since = self._unsettled_since
        if since is not None and time.monotonic() - since > SETTLE_S:
            msg = f"liveness (faust): {self._args[1]} not settled within {SETTLE_S:.0f} s"
            raise StoreUnavailable(msg)
        return 0

    def tick(self) -> None:
        """Publish what changed (`LivenessWatch.tick`), never while a batch is being noted."""
        with self._lock:
            self.watch.tick()

    def close(self) -> None:
        """Stop the app (it leaves its group) and wait for its thread."""
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stopping.set)
        if self._thread.ident is not None:  # started
            self._thread.join(timeout=STOP_S)

    def _note(self, sightings: list[Sighting]) -> None:
        with self._lock:
            self.watch.take(sightings)

    def _watch_settling(self, settled: bool) -> None:
        """Ready at the first settled moment; the time an unsettled spell started."""
        if not settled:
            self._unsettled_since = self._unsettled_since or time.monotonic()
            return
        self._unsettled_since = None
        if not self._ready.is_set():
            logger.info("liveness (faust): recovered every partition")
            self._ready.set()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()  # the app is built in the loop that runs it
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            with tempfile.TemporaryDirectory(prefix="jackpot-liveness-") as datadir:
                loop.run_until_complete(self._serve(datadir))
        except Exception as exc:  # reported to the projector's loop by poll()
            logger.exception("liveness (faust): stopped")
            self._failed = exc
        finally:
            loop.close()

    async def _serve(self, datadir: str) -> None:
        self._stopping = asyncio.Event()
        app, table = build_app(*self._args, datadir=datadir)
        table.on_sightings = self._note
        logger.info("liveness (faust): %s -> group %s", self._args[1], self._args[3])
        markers = asyncio.ensure_future(past_commit_markers(app))
        await app.start()  # returns once the group has settled and recovery is done
        stop = asyncio.ensure_future(self._stopping.wait())
        try:
            recovered = app.tables.recovery.completed
            while not stop.done():
                self._watch_settling(recovered.is_set() and not app.rebalancing)
                await asyncio.wait([stop], timeout=0.05)
        finally:
            stop.cancel()
            markers.cancel()
            await app.stop()


async def past_commit_markers(app: Any, every_s: float = 1.0) -> None:
    """Mark a partition recovered once faust's consumer has read to its end.

    faust 0.15.3 ends a recovery when it has delivered the record just before each partition's
    end offset (its highwater less one). The worker wrote the liveness topic in its
    transactions (now outside them, `streams.scaleout.side`; older segments keep the markers), so
    on a quiet floor a partition's last offset is a commit marker, which a
    ``read_committed`` consumer never delivers: the recovery never ended and the watch gave up
    after `SETTLE_S` (found running the projector under the signage role, issue 13). faust's
    own fix-up (``detect_aborted_tx``) runs only for apps in its exactly-once mode. This does
    the same for ours: a partition whose consumer position has passed that offset (the marker
    included) is recorded as caught up; faust ends the recovery at its next idle check, after
    the records fetched were applied."""
    recovery = app.tables.recovery
    while True:
        await asyncio.sleep(every_s)
        if not recovery.in_recovery:
            continue
        for tp, highwater in list(recovery.active_highwaters.items()):
            offset = recovery.active_offsets.get(tp)
            if highwater is None or highwater < 0 or (offset is not None and offset >= highwater):
                continue
            position = await app.consumer.position(tp)
            if position is not None and position > highwater:
                logger.info("liveness (faust): %s read to its end past a commit marker", tp)
                recovery.active_offsets[tp] = highwater
