"""The read side's commit follows its agent (`streams.scaleout.readside.transport`:
`perform_seek`, `_new_offset`; `order`): never past a committed record the agent did not apply,
whatever faust delivered or dropped, without a broker. The consumer holds faust's own
bookkeeping (its acks, read and committed offsets), the delivery step is faust's
(`Consumer._drain_messages`, faust-streaming 0.15.3) written out, the agent is the read side's
`TakenInOrder`, and the hole reads are a function over a hand-written partition.

faust alone passed records it never delivered: in a fresh group (no committed offset, so no
read offset before the first record delivered and no test of the head in its commit), at a
committed offset of 1 (faust takes a read offset of 0 for none), and a record it fetched while
it sought; under load after a rebalance it also held its commit below records applied long
before."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

import pytest
from faust.types import TP
from hypothesis import given
from hypothesis import strategies as st
from intervaltree import IntervalTree  # type: ignore[import-untyped]

from streams.scaleout.readside.heads import ReadOffsets, heads_after_seek, read_offsets_after_seek
from streams.scaleout.readside.order import TakenInOrder
from streams.scaleout.readside.transport import _WrittenBeforeCommittedConsumer
from tests.streams.scaleout.readside.test_gaps import Partition, guard_over

TOPIC = "floor.events"
TP0 = TP(TOPIC, 0)


class ReadSide:
    """The read side's consumer with faust's bookkeeping and nothing else (no app, no thread),
    assigned ``TP0`` whose group offset is ``committed``, and its agent: ``applied`` lists the
    offsets it applied, in order (from faust or from a read)."""

    def __init__(self, partition: Partition, committed: int | None, log_start: int = 0) -> None:
        guard, self.skipped, _ = guard_over(partition)
        consumer: Any = _WrittenBeforeCommittedConsumer.__new__(_WrittenBeforeCommittedConsumer)
        consumer.app = SimpleNamespace(consumer_generation_id=1)
        consumer._acked = defaultdict(list)
        consumer._acked_index = defaultdict(set)
        consumer._gap = defaultdict(IntervalTree)
        consumer._read_offset = ReadOffsets(lambda: consumer.app.consumer_generation_id)
        consumer._committed_offset = defaultdict(lambda: None)
        consumer._sought = None
        consumer.assignment = lambda: {TP0}
        consumer.seek_to_committed = seek_to(committed)

        async def earliest_offsets(*tps: TP) -> dict[TP, int]:
            return dict.fromkeys(tps, log_start)

        consumer.earliest_offsets = earliest_offsets
        self.consumer = consumer
        self.applied: list[int] = []
        self.order = TakenInOrder(
            lambda: consumer.app.consumer_generation_id,
            consumer.head_after_seek,
            guard.inside,
            lambda _tp, record: self.applied.append(record[0]),
        )
        consumer.app.taken_in_order = self.order

    async def deliver(self, offsets: Iterable[int]) -> None:
        """faust's delivery of each record (`Consumer._drain_messages`: dropped at or below its
        read offset; a jump of the read offset is a hole), the agent's step and faust's ack."""
        consumer = self.consumer
        for offset in offsets:
            r_offset = consumer._read_offset[TP0]
            if r_offset is not None and offset <= r_offset:
                continue  # faust drops it
            if r_offset and offset - r_offset > 1:
                await consumer._add_gap(TP0, r_offset + 1, offset)
            await self.order.take(TP0, offset)
            self.applied.append(offset)
            committed = consumer._committed_offset[TP0]
            if committed is None or offset >= committed:
                consumer._acked[TP0].append(offset)
                consumer._acked_index[TP0].add(offset)
            consumer._read_offset[TP0] = offset

    def commit(self) -> int | None:
        """faust's commit (`Consumer._commit_tps`: the offset `_new_offset` gives, if
        `_should_commit`, recorded as committed); the offset committed now, if any."""
        offset: int | None = self.consumer._new_offset(TP0)
        if offset is None or not self.consumer._should_commit(TP0, offset):
            return None
        self.consumer._committed_offset[TP0] = offset
        return offset


def seek_to(committed: int | None) -> Any:
    async def seek_to_committed() -> dict[TP, int | None]:
        return {TP0: committed}

    return seek_to_committed


def run_after_seek(side: ReadSide, delivered: Iterable[int], early: Iterable[int] = ()) -> Any:
    """A start: the records ``early`` delivered before the seek is done (faust's recovery
    resumes the partitions first), the seek, the records ``delivered``; the commit then."""

    async def scenario() -> int | None:
        seeking = asyncio.ensure_future(side.deliver(early))  # waits for the seek's head
        await asyncio.sleep(0.1)
        await side.consumer.perform_seek()
        await seeking
        await side.deliver(delivered)
        return side.commit()

    return asyncio.run(scenario())


def test_a_fresh_group_applies_what_faust_dropped_before_its_first_delivery_then_commits() -> None:
    # faust dropped 0..3 across the start's rebalances: faust alone committed 10 without them
    side = ReadSide(Partition(list(range(10))), None)
    assert run_after_seek(side, range(4, 10)) == 10
    assert side.applied == list(range(10))


@pytest.mark.parametrize("committed", [1, 2, 5])
def test_a_record_missing_at_the_committed_offset_is_applied_before_the_commit_passes_it(
    committed: int,
) -> None:
    side = ReadSide(Partition(list(range(10))), committed)
    assert run_after_seek(side, range(committed + 1, 10)) == 10
    assert side.applied == list(range(committed, 10))


def test_nothing_is_committed_before_the_agent_took_a_record_of_this_generation() -> None:
    side = ReadSide(Partition(list(range(10))), 3)
    assert run_after_seek(side, ()) is None
    assert run_after_seek(side, range(3, 6)) == 6
    side.consumer.app.consumer_generation_id = 2  # a rebalance: the agent's offsets are old
    assert side.commit() is None
    assert run_after_seek(side, range(6, 8)) == 8


def test_faust_acks_are_not_kept_growing() -> None:
    side = ReadSide(Partition(list(range(50))), None)
    assert run_after_seek(side, range(50)) == 50
    assert (side.consumer._acked[TP0], side.consumer._acked_index[TP0]) == ([], set())


def test_the_liveness_app_keeps_faust_own_offsets() -> None:
    side = ReadSide(Partition(list(range(10))), None)
    side.consumer.app = SimpleNamespace(consumer_generation_id=1)  # no agent's order
    side.consumer._acked[TP0].extend([0, 1, 2, 4])
    side.consumer._acked_index[TP0].update([0, 1, 2, 4])
    assert side.commit() == 3


@given(
    markers=st.sets(st.integers(0, 49), max_size=15),
    dropped=st.sets(st.integers(0, 49), max_size=15),
    committed=st.one_of(st.none(), st.integers(0, 30)),
    early=st.integers(0, 5),
)
def test_the_commit_never_passes_a_committed_record_the_agent_did_not_apply(
    markers: set[int], dropped: set[int], committed: int | None, early: int
) -> None:
    records = sorted(set(range(50)) - markers)
    head = committed or 0
    delivered = [o for o in records if o >= head and o not in dropped]
    side = ReadSide(Partition(records), committed)
    offset = run_after_seek(side, delivered[early:], early=delivered[:early])
    if not delivered:
        assert offset is None
        return
    assert offset == delivered[-1] + 1
    assert sorted(set(side.applied)) == [o for o in records if head <= o < offset]


def test_the_head_is_the_committed_offset_or_the_first_offset_left() -> None:
    committed = {TP(TOPIC, 0): 10, TP(TOPIC, 1): -1, TP(TOPIC, 2): None, TP(TOPIC, 3): 1}
    committed[TP(TOPIC, 4)] = 3  # retention deleted past it
    earliest = dict.fromkeys(committed, 0) | {TP(TOPIC, 2): 7, TP(TOPIC, 4): 5}
    heads = heads_after_seek(committed, earliest)
    assert heads == {
        TP(TOPIC, 0): 10,
        TP(TOPIC, 1): 0,
        TP(TOPIC, 2): 7,
        TP(TOPIC, 3): 1,
        TP(TOPIC, 4): 5,
    }
    # one below the head, so faust drops nothing sought again; 0 reads as none to faust
    assert read_offsets_after_seek(heads, {}) == {
        TP(TOPIC, 0): 9,
        TP(TOPIC, 1): None,
        TP(TOPIC, 2): 6,
        TP(TOPIC, 3): None,
        TP(TOPIC, 4): 4,
    }
    # a partition with records delivered while faust sought keeps the last of them
    delivered = {TP(TOPIC, 0): 15, TP(TOPIC, 1): 3, TP(TOPIC, 2): None}
    assert read_offsets_after_seek(heads, delivered) == {
        TP(TOPIC, 0): 15,
        TP(TOPIC, 1): 3,
        TP(TOPIC, 2): 6,
        TP(TOPIC, 3): None,
        TP(TOPIC, 4): 4,
    }


def test_a_fresh_group_starts_at_the_first_offset_retention_left() -> None:
    records = list(range(100, 106))
    side = ReadSide(Partition(records), None, log_start=100)
    assert run_after_seek(side, records[1:]) == 106
    assert side.applied == records


def test_the_agent_gets_a_head_once_the_seek_of_the_generation_now_is_done() -> None:
    consumer = ReadSide(Partition(list(range(10))), 7).consumer

    async def scenario() -> tuple[bool, int]:
        asked = asyncio.ensure_future(consumer.head_after_seek(TP0))
        await asyncio.sleep(0.2)
        waited = not asked.done()  # records come while faust seeks: the agent waits
        await consumer.perform_seek()
        return waited, await asked

    assert asyncio.run(scenario()) == (True, 7)
    consumer.app.consumer_generation_id = 2  # a rebalance: the last seek's heads are old

    async def later() -> bool:
        asked = asyncio.ensure_future(consumer.head_after_seek(TP0))
        await asyncio.sleep(0.2)
        asked.cancel()
        return asked.cancelled() or not asked.done()

    assert asyncio.run(later())


def test_a_read_offset_set_by_a_record_in_hand_at_a_rebalance_is_not_kept() -> None:
    partition = Partition(list(range(10)))
    side = ReadSide(partition, None)
    consumer = side.consumer

    async def scenario() -> int | None:
        await consumer.perform_seek()
        await side.deliver(range(8))
        assert side.commit() == 8
        consumer._committed_offset[TP0] = 5  # committed 0..4 only (the commit above lost)
        consumer._read_offset.pop(TP0)  # the revoke (faust's own step)
        consumer._read_offset[TP0] = 7  # a record in hand, set after the revoke
        consumer.app.consumer_generation_id = 2  # assigned again
        consumer.seek_to_committed = seek_to(5)
        await consumer.perform_seek()
        side.applied.clear()
        await side.deliver(range(5, 10))  # sought again from 5: none dropped
        return side.commit()

    assert asyncio.run(scenario()) == 10
    assert (side.applied, partition.reads) == (list(range(5, 10)), [])
