"""faust's aiokafka transport and table as the read side needs them: the consumer reads
``read_committed``, and no offset is committed before the table writes of the records below it
are acknowledged by the broker.

- **read_committed.** faust-streaming 0.15.3 has no setting for the consumer's isolation level:
  its aiokafka driver reads ``read_committed`` only under ``processing_guarantee=exactly_once``
  (faust's experimental transactions, which this project does not use). `ReadCommittedTransport`
  sets aiokafka's own ``isolation_level`` on the consumer it builds, before it starts, so the
  agent never sees a record of an aborted (fenced or crashed) money-path transaction.
- **Written before committed.** faust flushes its producer before it commits offsets, but that
  flush is no barrier: `ProducerBuffer.flush_atmost` returns once no message left its queue for
  0.1 s, and a message taken off the queue but not yet handed to the Kafka client is counted by
  neither that queue nor the client's flush. A commit could then cover a record whose changelog
  write had not reached the broker, and a SIGKILL in that window would lose the record for good:
  the restart reads on after the committed offset, and the restored table never held the write.
  (Found by reading faust's code while chasing a lost record of the kill test; a probe of 32
  commits found every write acknowledged by then, and that loss was faust committing past a
  record it never delivered: `gaps`. The barrier costs nothing when the writes are done.) So
  each table of the app hands every changelog write it sends to the app's `ChangelogWrites`,
  and the consumer takes the offsets it may commit, then waits until every write sent by then
  is acknowledged, and only then commits them. A record is
  acknowledged to faust after the agent's step for it (its writes) returned, so the writes
  behind every offset taken are among those waited for.
- **Never past the head unseen.** Each partition's head is its first offset not committed (the
  group's committed offset, else the partition's first offset). faust's commit may pass the
  head untaken (`head_taken`), and without a read offset (a fresh group) it sees no hole
  before the first record it delivers. The consumer here reads every hole from the head on
  (`gaps`) and commits nothing while the record at the head is neither taken nor inside a hole
  passed (`heads`). A head still untaken below acked records after `HEAD_WAIT_S` is read like
  a hole: faust skipped a record it reported no hole for. A hole is passed once read empty, or
  once the agent, which reads every jump itself (`order`), applied the records faust skipped
  there from its read: never passed unseen.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import faust
from faust.exceptions import ProducerSendError
from faust.transport.consumer import ensure_TP
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP

from controller.model.errors import StoreUnavailable
from streams.scaleout.readside.gaps import GapGuard, Hole
from streams.scaleout.readside.heads import (
    HEAD_WAIT_S,
    SEEK_POLL_S,
    ReadOffsets,
    head_taken,
    heads_after_seek,
    read_offsets_after_seek,
)


class ChangelogWrites:
    """The changelog writes handed to the producer and not yet acknowledged by the broker."""

    def __init__(self) -> None:
        self.pending: set[asyncio.Future[Any]] = set()

    def track(self, write: asyncio.Future[Any]) -> None:
        """Count ``write`` as pending until the broker acknowledged (or refused) it."""
        self.pending.add(write)
        write.add_done_callback(self.pending.discard)

    def sent_so_far(self) -> list[asyncio.Future[Any]]:
        """The writes pending now (taken synchronously, with the offsets they cover)."""
        return list(self.pending)

    @staticmethod
    async def acknowledged(writes: Iterable[asyncio.Future[Any]]) -> None:
        """Return once each of ``writes`` is acknowledged; StoreUnavailable if one failed (a
        commit must not cover a record whose write is lost: faust crashes the app on it and its
        supervisor starts it again from the last commit)."""
        waiting = list(writes)
        if waiting:
            await asyncio.wait(waiting)
        for write in waiting:
            if write.cancelled():
                msg = "a changelog write of the read side was cancelled"
                raise StoreUnavailable(msg)
            failure = write.exception()
            if failure is not None:
                msg = f"a changelog write of the read side failed: {failure}"
                raise StoreUnavailable(msg) from failure


def writes_of(app: Any) -> ChangelogWrites:
    """The `ChangelogWrites` of a `ReadSideApp` (faust types its apps as its own `AppT`)."""
    writes = app.changelog_writes
    assert isinstance(writes, ChangelogWrites), writes  # only ReadSideApp builds these
    return writes


async def gap_after_check(
    consumer: Any,
    guard: GapGuard,
    tp: TP,
    hole: Hole,
    register: Callable[[TP, int, int], Awaitable[None]],
) -> None:
    """Give ``hole`` to faust (``register``: its own step of `_add_gap`, the offsets up to
    ``hole.stop - 1``) once ``guard`` read it, and once the agent applied any record the read
    found inside (`order`: it reads the hole too and applies what faust skipped), unless the
    partition was revoked or the group rebalanced meanwhile (it is read again from its
    committed offset then)."""
    generation = consumer.app.consumer_generation_id

    def current() -> bool:
        return consumer.app.consumer_generation_id == generation and tp in consumer.assignment()

    def applied() -> bool:
        taken = guard.taken(hole.topic, hole.partition)
        return taken is not None and taken >= hole.stop - 1

    if await guard.inside(hole):
        while current() and not applied():
            await asyncio.sleep(SEEK_POLL_S)
    if current():
        await register(tp, hole.start, hole.stop - 1)


class _ReadCommittedThread(faust_aiokafka.AIOKafkaConsumerThread):
    def _create_worker_consumer(self, transport: Any) -> Any:
        consumer = super()._create_worker_consumer(transport)
        consumer._isolation_level = "read_committed"  # read by its start()
        return consumer


class _WrittenBeforeCommittedConsumer(faust_aiokafka.Consumer):
    """faust's consumer with its holes checked before it may commit past them (`_add_gap`),
    and its commit step (`Consumer._commit_tps`, faust-streaming 0.15.3: take the committable
    offsets, publish their attachments, commit) with the wait for the changelog's writes
    between taking the offsets and committing them (module docstring)."""

    _gap_checks: set[asyncio.Future[None]]
    #: per partition, its head left untaken ((generation, offset)) and since when
    _heads_waiting: dict[TP, tuple[tuple[int, int], float]]
    #: the generation of the last seek and the heads it left (`head_after_seek`)
    _sought: tuple[int, dict[TP, int]] | None

    def __post_init__(self) -> None:
        super().__post_init__()
        self._gap_checks = set()
        self._heads_waiting = {}
        self._sought = None
        self._read_offset = ReadOffsets(lambda: int(self.app.consumer_generation_id))

    async def head_after_seek(self, tp: TP) -> int | None:
        """``tp``'s head after the seek of the group's generation now, once that seek is done
        (faust delivers records while it seeks: `order`); None if that seek left ``tp`` out."""
        while True:
            sought = self._sought
            if sought is not None and sought[0] == self.app.consumer_generation_id:
                return sought[1].get(tp)
            await asyncio.sleep(SEEK_POLL_S)

    def _new_consumer_thread(self) -> _ReadCommittedThread:
        return _ReadCommittedThread(self, loop=self.loop, beacon=self.beacon)

    async def _add_gap(self, tp: TP, offset_from: int, offset_to: int) -> None:
        """faust's hole (``offset_from`` .. ``offset_to - 1``; it delivers ``offset_to`` now)
        registered only after the app's `GapGuard` read it empty (`gaps`); until then faust's
        commit stops below it. Without a guard (the liveness app), faust's own step."""
        guard = getattr(self.app, "gap_guard", None)
        if guard is None:
            await super()._add_gap(tp, offset_from, offset_to)
            return
        start = max(offset_from, self._head(tp))  # below the head: committed, taken
        if start < offset_to:
            self._check_hole(guard, Hole(tp.topic, tp.partition, start, offset_to))

    def _check_hole(self, guard: GapGuard, hole: Hole) -> None:
        tp = TP(hole.topic, hole.partition)
        check = asyncio.ensure_future(gap_after_check(self, guard, tp, hole, self._register_gap))
        self._gap_checks.add(check)  # held until done (the loop keeps only weak references)
        check.add_done_callback(self._gap_checks.discard)

    def _check_head(self, tp: TP, now: float) -> None:
        """Read the offsets from the head up to the first acked (`gaps`) once the head has
        waited `HEAD_WAIT_S` untaken while records above it were acked: faust delivered them and
        reported no hole below (measured: a record faust fetched while it sought, never handed
        to the agent, with no jump in its read offsets; its own commit passed it). Sooner, the
        head may still come: records acked before a rebalance seek back below them."""
        guard = getattr(self.app, "gap_guard", None)
        acked = self._acked.get(tp)
        if guard is None or not acked or head_taken(self._head(tp), acked, self._gap[tp]):
            self._heads_waiting.pop(tp, None)
            return
        head = (self.app.consumer_generation_id, self._head(tp))
        since = self._heads_waiting.setdefault(tp, (head, now))
        if since[0] != head:
            self._heads_waiting[tp] = (head, now)
        elif now - since[1] >= HEAD_WAIT_S:
            self._heads_waiting[tp] = (head, math.inf)  # read once for this head
            self._check_hole(guard, Hole(tp.topic, tp.partition, head[1], min(acked)))

    async def _register_gap(self, tp: TP, offset_from: int, offset_to: int) -> None:
        """faust's step of `_add_gap` (the offsets ``offset_from`` .. ``offset_to`` count as
        taken), cut at the head, not one above it as faust cuts: `head_taken` must find the
        head inside a hole that starts there."""
        start = max(offset_from, self._head(tp))
        if start <= offset_to:
            gaps = self._gap[tp]
            gaps.addi(start, offset_to + 1)
            gaps.merge_overlaps()

    def _head(self, tp: TP) -> int:
        """The first offset not committed (faust keeps 0 as None)."""
        return self._committed_offset[tp] or 0

    def _new_offset(self, tp: TP) -> int | None:
        """faust's offset to commit (`Consumer._new_offset`), None while the record at the
        head was not taken (`head_taken`): the commit then waits for the record, or for the
        guard to read its hole, and never passes it unseen."""
        acked = self._acked[tp]
        guarded = getattr(self.app, "gap_guard", None) is not None
        if acked and guarded and not head_taken(self._head(tp), acked, self._gap[tp]):
            return None
        offset: int | None = super()._new_offset(tp)
        return offset

    async def perform_seek(self) -> None:
        """faust's seek to the committed offsets (`Consumer.perform_seek`, faust-streaming
        0.15.3), each partition's head (`heads_after_seek`: its first offset where the group
        has no commit) kept as faust's committed offset and its read offset set below it by
        `read_offsets_after_seek`. Without a guard (the liveness app), faust's own step."""
        if getattr(self.app, "gap_guard", None) is None:
            await super().perform_seek()
            return
        generation = int(self.app.consumer_generation_id)
        committed = await self.seek_to_committed()
        earliest = await self.earliest_offsets(*committed)
        heads = heads_after_seek(committed, earliest)
        # no await from here on: what was delivered meanwhile is all in the read offsets
        offsets = self._read_offset
        assert isinstance(offsets, ReadOffsets), offsets
        delivered = {tp: offsets.set_in(tp, generation) for tp in heads}
        self._read_offset.update(read_offsets_after_seek(heads, delivered))
        self._committed_offset.update({ensure_TP(tp): head or None for tp, head in heads.items()})
        self._sought = (generation, {ensure_TP(tp): head for tp, head in heads.items()})

    async def _commit_tps(self, tps: Iterable[TP], start_new_transaction: bool) -> bool:
        tps = list(tps)
        now = time.monotonic()
        for tp in tps:
            self._check_head(tp, now)
        offsets = self._filter_committable_offsets(tps)
        if not offsets:
            return False
        writes = writes_of(self.app).sent_so_far()  # no await since the offsets were taken
        try:
            await ChangelogWrites.acknowledged(writes)
            await self._handle_attached(offsets)
        except (StoreUnavailable, ProducerSendError) as exc:  # faust's reaction to a lost send
            await self.crash(exc)
            return False
        committed: bool = await self._commit_offsets(
            offsets, start_new_transaction=start_new_transaction
        )
        return committed


class ReadCommittedTransport(faust_aiokafka.Transport):
    """faust's aiokafka transport whose consumer reads ``read_committed`` and commits only
    offsets whose changelog writes are acknowledged (module docstring)."""

    Consumer = _WrittenBeforeCommittedConsumer


class TrackedTable(faust.Table[Any, Any]):
    """A faust Table that hands each changelog write it sends to its app's `ChangelogWrites`."""

    def send_changelog(self, *args: Any, **kwargs: Any) -> Any:
        write = super().send_changelog(*args, **kwargs)
        writes_of(self.app).track(write)
        return write


class ReadSideApp(faust.App):
    """A faust App on `ReadCommittedTransport`, its tables `TrackedTable`s."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.changelog_writes = ChangelogWrites()
        self.gap_guard: GapGuard | None = None  # set by the aggregates' app (`app.build`)
        super().__init__(*args, Table=TrackedTable, **kwargs)

    def _new_transport(self) -> Any:
        return ReadCommittedTransport(self.conf.broker_consumer, self)
