"""The agent takes a partition's records in offset order, a jump read first
(`streams.scaleout.readside.order`), without a broker: the reads are a function over a
hand-written partition, the heads and generations a hand-written sequence of seeks.

The record this guards was lost in CI and here: faust never handed over a record it fetched
while it sought after a start and handed over the next one; applied, that one moved the
windows' marks past the record, and a restart then skipped it as applied already."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from faust.types import TP

from streams.scaleout.readside.gaps import Hole
from streams.scaleout.readside.order import TakenInOrder
from tests.streams.scaleout.readside.test_gaps import Partition, guard_over

TOPIC = "floor.events"
TP0, TP1 = TP(TOPIC, 0), TP(TOPIC, 1)


class Floor:
    """The consumer group as the agent sees it: a generation and each seek's heads."""

    def __init__(self, heads: dict[TP, int]) -> None:
        self.generation = 1
        self.heads = heads
        self.asked: list[TP] = []

    async def head(self, tp: TP) -> int:
        self.asked.append(tp)
        return self.heads.get(tp, 0)

    def rebalance(self, heads: dict[TP, int]) -> None:
        self.generation += 1
        self.heads = heads


def takes(order: TakenInOrder, records: Iterable[tuple[TP, int]]) -> list[int]:
    """The offsets the agent applies of ``records`` delivered in this order."""

    async def scenario() -> list[int]:
        return [offset for tp, offset in records if await order.take(tp, offset)]

    return asyncio.run(scenario())


def in_order(partition: Partition, floor: Floor) -> tuple[TakenInOrder, list[tuple[Hole, int]]]:
    guard, skipped, _ = guard_over(partition)
    return TakenInOrder(lambda: floor.generation, floor.head, guard.empty), skipped


def test_a_record_faust_skipped_stops_the_next_one_from_being_applied() -> None:
    # CI's loss: a restart at committed offset 38; faust hands over 39 and never 38
    partition = Partition(list(range(30, 50)))
    order, skipped = in_order(partition, Floor({TP1: 38}))
    assert takes(order, [(TP1, 39), (TP1, 40)]) == []  # the read side exits on the first
    assert skipped[0] == (Hole(TOPIC, 1, 38, 39), 38)


def test_markers_and_aborted_records_are_read_and_passed() -> None:
    partition = Partition([0, 1, 2, 5, 6, 9])  # 3, 4, 7, 8: markers and aborted records
    floor = Floor({TP0: 0})
    order, skipped = in_order(partition, floor)
    assert takes(order, [(TP0, o) for o in (0, 1, 2, 5, 6, 9)]) == [0, 1, 2, 5, 6, 9]
    assert skipped == []
    assert partition.reads == [(3, 5), (7, 9)]
    assert floor.asked == [TP0]  # the head once per partition and generation


def test_the_first_record_after_a_seek_is_held_to_the_head() -> None:
    partition = Partition([10, 11, 12, 14])
    order, skipped = in_order(partition, Floor({TP0: 13}))  # 13: a marker
    assert takes(order, [(TP0, 14)]) == [14]
    assert (skipped, partition.reads) == ([], [(13, 14)])


def test_after_a_rebalance_redeliveries_and_records_in_hand_need_no_read() -> None:
    partition = Partition(list(range(20)))
    floor = Floor({TP0: 0})
    order, skipped = in_order(partition, floor)
    assert takes(order, [(TP0, o) for o in range(8)]) == list(range(8))
    floor.rebalance({TP0: 5})  # committed 5: 5..7 come again; 8 was in hand already
    assert takes(order, [(TP0, 8), (TP0, 5), (TP0, 6), (TP0, 7), (TP0, 8), (TP0, 9)]) == [
        8,
        5,
        6,
        7,
        8,
        9,
    ]
    assert (skipped, partition.reads) == ([], [])


def test_a_partition_back_from_another_member_starts_at_its_head() -> None:
    partition = Partition(list(range(40)))
    floor = Floor({TP0: 0})
    order, skipped = in_order(partition, floor)
    assert takes(order, [(TP0, o) for o in range(5)]) == list(range(5))
    floor.rebalance({TP0: 30})  # another read side took 5..29 meanwhile and committed them
    assert takes(order, [(TP0, 30), (TP0, 31)]) == [30, 31]
    assert (skipped, partition.reads) == ([], [])
    floor.rebalance({TP0: 30})
    assert takes(order, [(TP0, 33)]) == []  # 32 skipped after the next seek
    assert skipped == [(Hole(TOPIC, 0, 32, 33), 32)]
