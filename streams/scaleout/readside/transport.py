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
  is acknowledged, and only then commits them. The agent takes a record and applies it with no
  await between, so the writes behind every offset taken are among those waited for.
- **The commit follows the agent.** faust's own offset to commit comes from its acks and the
  holes it saw, and it passes records it never delivered: the head (the first offset not
  committed) untaken, since its test asks only that the first ack be at most one above it and
  tests nothing while the group has no commit; a record it dropped while it sought, taken for a
  transaction marker; and under load after a rebalance it held the commit below records applied
  long before. Here the offset to commit is one past the last offset the agent took in order in
  the group's current generation (`_new_offset`): the agent holds the first record after each
  seek to the head, reads every jump before it takes the record after it, and applies any
  committed record faust skipped from that read (`order`, `gaps`), so everything below that
  offset was applied, its writes sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import faust
from faust.exceptions import ProducerSendError
from faust.transport.consumer import ensure_TP
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP

from controller.model.errors import StoreUnavailable
from streams.scaleout.readside.heads import (
    SEEK_POLL_S,
    ReadOffsets,
    heads_after_seek,
    read_offsets_after_seek,
)
from streams.scaleout.readside.order import TakenInOrder


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


class _ReadCommittedThread(faust_aiokafka.AIOKafkaConsumerThread):
    def _create_worker_consumer(self, transport: Any) -> Any:
        consumer = super()._create_worker_consumer(transport)
        consumer._isolation_level = "read_committed"  # read by its start()
        return consumer


class _WrittenBeforeCommittedConsumer(faust_aiokafka.Consumer):
    """faust's consumer whose commit, in the read side, follows the agent's order (`_new_offset`),
    and whose commit step (`Consumer._commit_tps`, faust-streaming 0.15.3: take the committable
    offsets, publish their attachments, commit) waits for the changelog's writes between taking
    the offsets and committing them (module docstring). Without an order (the liveness app),
    faust's own offsets."""

    #: the generation of the last seek and the heads it left (`head_after_seek`)
    _sought: tuple[int, dict[TP, int]] | None

    def __post_init__(self) -> None:
        super().__post_init__()
        self._sought = None
        self._read_offset = ReadOffsets(lambda: int(self.app.consumer_generation_id))

    def _order(self) -> TakenInOrder | None:
        """The read side's agent's order (`app.build`); None in the liveness app."""
        order: TakenInOrder | None = getattr(self.app, "taken_in_order", None)
        return order

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
        """faust's hole (``offset_from`` .. ``offset_to - 1``): nothing in the read side, whose
        agent reads every jump itself before it takes the record after it (`order`) and whose
        commit follows the agent (`_new_offset`). In the liveness app, faust's own step."""
        if self._order() is None:
            await super()._add_gap(tp, offset_from, offset_to)

    def _new_offset(self, tp: TP) -> int | None:
        """The offset to commit. In the read side: one past the last offset the agent took in
        order in the group's generation now (`order.TakenInOrder.taken_through`: every committed
        record from the head up to it applied, its table writes sent), None before it took one.
        faust's own acks are dropped: its bookkeeping passes records it never delivered (the
        head, a hole it took for a marker: `gaps`), and under load after a rebalance it held
        the commit below records applied long before (a stall exit each time). In the liveness
        app, faust's own offset."""
        order = self._order()
        if order is None:
            offset: int | None = super()._new_offset(tp)
            return offset
        self._acked[tp].clear()  # faust's acks, unused here (kept from growing)
        self._acked_index[tp].clear()
        taken = order.taken_through(tp)
        return None if taken is None else taken + 1

    async def perform_seek(self) -> None:
        """faust's seek to the committed offsets (`Consumer.perform_seek`, faust-streaming
        0.15.3), each partition's head (`heads_after_seek`: its first offset where the group
        has no commit) kept as faust's committed offset and its read offset set below it by
        `read_offsets_after_seek`. Without an order (the liveness app), faust's own step."""
        if self._order() is None:
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
        #: the agent's order, which the commit follows; set by the aggregates' app (`app.build`)
        self.taken_in_order: TakenInOrder | None = None
        super().__init__(*args, Table=TrackedTable, **kwargs)

    def _new_transport(self) -> Any:
        return ReadCommittedTransport(self.conf.broker_consumer, self)
