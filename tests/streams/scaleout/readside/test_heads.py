"""faust never commits past the first offset not yet committed (the *head*) unless its record
was taken or its hole read empty (`streams.scaleout.readside.transport`: `perform_seek`,
`_add_gap`, `_new_offset`), without a broker: the read side's consumer holds faust's own
bookkeeping (its acks, holes and offsets, and faust's `_new_offset` behind ours), the delivery
step is faust's (`Consumer._drain_messages`, faust-streaming 0.15.3) written out, and the hole
reads are a function over a hand-written partition.

A fresh group was faust's blind spot: no committed offset, so no read offset before the first
record delivered, no hole for records dropped before it, and no test of the head in its commit;
a committed offset of 1 was another (faust takes a read offset of 0 for none)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

import pytest
from faust.types import TP
from intervaltree import IntervalTree  # type: ignore[import-untyped]

from streams.scaleout.readside.gaps import Hole
from streams.scaleout.readside.heads import (
    HEAD_WAIT_S,
    ReadOffsets,
    heads_after_seek,
    read_offsets_after_seek,
)
from streams.scaleout.readside.transport import _WrittenBeforeCommittedConsumer
from tests.streams.scaleout.readside.test_gaps import Partition, guard_over

TOPIC = "floor.events"
TP0 = TP(TOPIC, 0)


def consumer_over(
    partition: Partition, committed: int | None, log_start: int = 0
) -> tuple[Any, list[tuple[Hole, int]]]:
    """The read side's consumer with faust's bookkeeping and nothing else (no app, no thread),
    assigned ``TP0`` whose group offset is ``committed``; the holes read that held records are
    recorded, and the agent's progress is ``consumer.agent_took`` (by partition: the last offset
    it took in order; none here unless a test sets it)."""
    guard, skipped, _ = guard_over(partition)
    consumer: Any = _WrittenBeforeCommittedConsumer.__new__(_WrittenBeforeCommittedConsumer)
    consumer.app = SimpleNamespace(gap_guard=guard, consumer_generation_id=1)
    consumer._acked = defaultdict(list)
    consumer._acked_index = defaultdict(set)
    consumer._gap = defaultdict(IntervalTree)
    consumer._read_offset = ReadOffsets(lambda: consumer.app.consumer_generation_id)
    consumer._committed_offset = defaultdict(lambda: None)
    consumer._gap_checks = set()
    consumer._heads_waiting = {}
    consumer._sought = None
    consumer.assignment = lambda: {TP0}

    async def seek_to_committed() -> dict[TP, int | None]:
        return {TP0: committed}

    async def earliest_offsets(*tps: TP) -> dict[TP, int]:
        return dict.fromkeys(tps, log_start)

    consumer.seek_to_committed = seek_to_committed
    consumer.earliest_offsets = earliest_offsets
    consumer._is_changelog_tp = lambda tp: tp.topic.endswith("-changelog")
    consumer.agent_took = {}
    guard.taken = lambda _topic, partition: consumer.agent_took.get(partition)
    return consumer, skipped


async def deliver(consumer: Any, offsets: Iterable[int]) -> None:
    """faust's delivery of each record (`Consumer._drain_messages`: a jump of the read offset
    is a hole) and the agent's ack of it (`Consumer.ack`), then the hole reads finished."""
    for offset in offsets:
        r_offset = consumer._read_offset[TP0]
        if r_offset is None or offset >= r_offset:
            gap = offset - (r_offset or 0)
            if gap > 1 and r_offset:
                await consumer._add_gap(TP0, r_offset + 1, offset)
            committed = consumer._committed_offset[TP0]
            if committed is None or offset >= committed:
                consumer._acked[TP0].append(offset)
                consumer._acked_index[TP0].add(offset)
            consumer._read_offset[TP0] = offset
    if consumer._gap_checks:  # a hole holding records waits for the agent: left waiting
        await asyncio.wait(set(consumer._gap_checks), timeout=0.3)
        await asyncio.sleep(0)  # the done callbacks that drop them


def commit_all(consumer: Any) -> int | None:
    """faust's commits one after another (`Consumer._commit_tps`: each takes the offset
    `_new_offset` gives, if `_should_commit`, and records it as committed) until one has
    nothing to commit; the last offset committed."""
    last = None
    while (offset := consumer._new_offset(TP0)) is not None:
        if consumer._should_commit(TP0, offset):
            consumer._committed_offset[TP0] = last = offset
    return last


def commit_after(
    records: list[int],
    committed: int | None,
    delivered: Iterable[int],
    log_start: int = 0,
    early: Iterable[int] = (),
) -> tuple[int | None, list[tuple[Hole, int]], list[tuple[int, int]]]:
    """A start (seek to ``committed``, the records ``early`` delivered before the seek is
    done), the records ``delivered``: how far faust's commits then go (None: not past the
    start), the guard's skips and the ranges it read."""
    partition = Partition(records)
    consumer, skipped = consumer_over(partition, committed, log_start)

    async def scenario() -> int | None:
        await deliver(consumer, early)
        await consumer.perform_seek()
        await deliver(consumer, delivered)
        return commit_all(consumer)

    return asyncio.run(scenario()), skipped, partition.reads


def test_a_fresh_group_never_commits_past_records_dropped_before_its_first_delivery() -> None:
    # faust dropped 0..3 across the start's rebalances: faust alone commits 10; here the commit
    # waits (the agent's own check reads the jump from the head: test_order.py)
    assert commit_after(list(range(10)), None, range(4, 10)) == (None, [], [])


def test_a_committed_offset_of_one_never_lets_the_record_at_one_pass_unseen() -> None:
    assert commit_after(list(range(10)), 1, range(2, 10)) == (None, [], [])


@pytest.mark.parametrize("committed", [2, 5])
def test_a_record_missing_at_the_committed_offset_is_passed_only_once_the_agent_applied_it(
    committed: int,
) -> None:
    offset, skipped, _ = commit_after(list(range(10)), committed, range(committed + 1, 10))
    assert offset is None
    assert skipped == [(Hole(TOPIC, 0, committed, committed + 1), committed)]
    partition = Partition(list(range(10)))
    consumer, _ = consumer_over(partition, committed)

    async def scenario() -> int | None:
        await consumer.perform_seek()
        await deliver(consumer, range(committed + 1, 10))
        consumer.agent_took[0] = 9  # it read the record faust skipped and applied it
        await deliver(consumer, ())
        return commit_all(consumer)

    assert asyncio.run(scenario()) == 10


@pytest.mark.parametrize("committed", [None, 0, 1, 3])
def test_markers_are_passed_once_read_empty(committed: int | None) -> None:
    records = [0, 1, 2, 4, 5, 8]  # 3, 6 and 7: commit markers
    delivered = [o for o in records if o >= (committed or 0)]
    offset, skipped, reads = commit_after(records, committed, delivered)
    assert offset == 9
    assert skipped == []
    assert all(start >= (committed or 0) for start, _stop in reads)  # nothing below the head


def test_a_fresh_group_starts_at_the_first_offset_retention_left() -> None:
    records = list(range(100, 106))
    assert commit_after(records, None, records, log_start=100)[:2] == (106, [])
    offset, skipped, reads = commit_after(records, None, records[1:], log_start=100)
    assert offset is None
    assert skipped == [(Hole(TOPIC, 0, 100, 101), 100)]
    assert reads == [(100, 101)]


@pytest.mark.parametrize("committed", [None, 1, 3])
def test_records_delivered_while_faust_seeks_are_no_hole(committed: int | None) -> None:
    # faust's recovery resumes the partitions before it seeks: records come in meanwhile
    start = committed or 0
    early, late = range(start, 6), range(6, 10)
    offset, skipped, reads = commit_after(list(range(10)), committed, late, early=early)
    assert (offset, skipped, reads) == (10, [], [])


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
    # one below the head, so a record missing there is a hole; 0 reads as none to faust
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


def head_left_untaken(records: list[int], waited: list[float]) -> tuple[Any, list[Any]]:
    """A restart at committed offset 5 where faust delivers 6..9 and never 5, with no jump in
    its read offsets (its read offset was past 5 already: measured, a record fetched while faust
    sought); the commit step's head check at each of ``waited`` seconds."""
    consumer, skipped = consumer_over(Partition(records), 5)

    async def scenario() -> None:
        await consumer.perform_seek()
        consumer._read_offset[TP0] = 5  # faust's, past the record it never handed over
        await deliver(consumer, range(6, 10))
        for now in waited:
            consumer._check_head(TP0, now)
            await deliver(consumer, ())  # the reads it started

    asyncio.run(scenario())
    return consumer, skipped


def test_a_head_left_untaken_below_acked_records_is_read_after_a_while() -> None:
    consumer, skipped = head_left_untaken(list(range(10)), [0.0, HEAD_WAIT_S / 2])
    assert (skipped, commit_all(consumer)) == ([], None)  # not yet: the commit waits
    consumer, skipped = head_left_untaken(list(range(10)), [0.0, HEAD_WAIT_S, HEAD_WAIT_S * 2])
    assert skipped == [(Hole(TOPIC, 0, 5, 6), 5)]  # read once: it waits for the agent
    assert commit_all(consumer) is None


def test_an_untaken_head_read_empty_is_passed() -> None:
    consumer, skipped = head_left_untaken([0, 1, 2, 3, 4, 6, 7, 8, 9], [0.0, HEAD_WAIT_S])
    assert (skipped, commit_all(consumer)) == ([], 10)


def test_the_agent_gets_a_head_once_the_seek_of_the_generation_now_is_done() -> None:
    consumer, _ = consumer_over(Partition(list(range(10))), 7)

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
    consumer, skipped = consumer_over(partition, None)

    async def scenario() -> int | None:
        await consumer.perform_seek()
        await deliver(consumer, range(8))
        consumer._committed_offset[TP0] = 5  # committed 0..4
        consumer._acked.pop(TP0)  # the revoke (faust's own step)
        consumer._acked_index.pop(TP0)
        consumer._read_offset.pop(TP0)
        consumer._read_offset[TP0] = 7  # a record in hand, set after the revoke
        consumer.app.consumer_generation_id = 2  # assigned again
        consumer.seek_to_committed = seek_to(5)
        await consumer.perform_seek()
        await deliver(consumer, range(5, 10))  # sought again from 5: none dropped
        return commit_all(consumer)

    assert asyncio.run(scenario()) == 10
    assert (skipped, partition.reads) == ([], [])


def seek_to(committed: int) -> Any:
    async def seek_to_committed() -> dict[TP, int | None]:
        return {TP0: committed}

    return seek_to_committed
