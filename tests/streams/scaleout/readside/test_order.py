"""The agent takes a partition's records in offset order, a jump read first and any record
faust skipped applied from the read in its place (`streams.scaleout.readside.order`), without a
broker: the reads are a function over a hand-written partition, the heads and generations a
hand-written sequence of seeks.

The record this guards was lost in CI and here: faust never handed over a record it fetched
while it sought after a start and handed over the next one; applied, that one moved the
windows' marks past the record, and a restart then skipped it as applied already."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from faust.types import TP
from hypothesis import given
from hypothesis import strategies as st

from streams.adapters.kafka.lag import CommittedRecord
from streams.scaleout.readside.gaps import Hole
from streams.scaleout.readside.order import TakenInOrder
from tests.streams.scaleout.readside.test_gaps import Partition, guard_over, record

TOPIC = "floor.events"
TP0, TP1 = TP(TOPIC, 0), TP(TOPIC, 1)


class Floor:
    """The consumer group as the agent sees it: a generation and each seek's heads."""

    def __init__(self, heads: dict[TP, int]) -> None:
        self.generation = 1
        self.heads = heads
        self.asked: list[TP] = []

    async def head(self, tp: TP) -> int | None:
        self.asked.append(tp)
        return self.heads.get(tp)

    def rebalance(self, heads: dict[TP, int]) -> None:
        self.generation += 1
        self.heads = heads


class Agent:
    """The agent's steps: what it applied, in order, and from where."""

    def __init__(self) -> None:
        self.applied: list[tuple[TP, int, str]] = []

    def fill(self, tp: TP, found: CommittedRecord) -> None:
        assert found == record(found[0])  # the value read with it
        self.applied.append((tp, found[0], "read"))


def in_order(
    partition: Partition, floor: Floor
) -> tuple[TakenInOrder, Agent, list[tuple[Hole, int]]]:
    guard, skipped, _ = guard_over(partition)
    agent = Agent()
    order = TakenInOrder(lambda: floor.generation, floor.head, guard.inside, agent.fill)
    return order, agent, skipped


def takes(order: TakenInOrder, agent: Agent, records: Iterable[tuple[TP, int]]) -> list[int]:
    """The offsets the agent applies when faust delivers ``records`` in this order (those read
    from the broker included, where they belong)."""

    async def scenario() -> None:
        for tp, offset in records:
            await order.take(tp, offset)
            agent.applied.append((tp, offset, "delivered"))

    agent.applied.clear()
    asyncio.run(scenario())
    return [offset for _tp, offset, _how in agent.applied]


def test_a_record_faust_skipped_is_applied_from_the_read_before_the_next_one() -> None:
    # CI's loss: a restart at committed offset 38; faust hands over 39 and never 38
    partition = Partition(list(range(30, 50)))
    order, agent, skipped = in_order(partition, Floor({TP1: 38}))
    assert takes(order, agent, [(TP1, 39), (TP1, 40)]) == [38, 39, 40]
    assert agent.applied[0] == (TP1, 38, "read")
    assert skipped == [(Hole(TOPIC, 1, 38, 39), 38)]
    assert [how for _tp, _o, how in agent.applied].count("read") == 1
    assert order.taken_through(TP1) == 40


def test_markers_and_aborted_records_are_read_and_passed() -> None:
    partition = Partition([0, 1, 2, 5, 6, 9])  # 3, 4, 7, 8: markers and aborted records
    floor = Floor({TP0: 0})
    order, agent, skipped = in_order(partition, floor)
    assert takes(order, agent, [(TP0, o) for o in (0, 1, 2, 5, 6, 9)]) == [0, 1, 2, 5, 6, 9]
    assert skipped == []
    assert partition.reads == [(3, 5), (7, 9)]
    assert floor.asked == [TP0]  # the head once per partition and generation


def test_the_first_record_after_a_seek_is_held_to_the_head() -> None:
    partition = Partition([10, 11, 12, 14])
    order, agent, skipped = in_order(partition, Floor({TP0: 13}))  # 13: a marker
    assert takes(order, agent, [(TP0, 14)]) == [14]
    assert (skipped, partition.reads) == ([], [(13, 14)])


def test_after_a_rebalance_the_partition_starts_again_at_its_head() -> None:
    partition = Partition(list(range(20)))
    floor = Floor({TP0: 0})
    order, agent, skipped = in_order(partition, floor)
    assert takes(order, agent, [(TP0, o) for o in range(8)]) == list(range(8))
    floor.rebalance({TP0: 5})  # committed 5: 5..7 come again; 8 was in hand already
    assert order.taken_through(TP0) is None  # nothing taken in this generation yet
    delivered = [(TP0, o) for o in (8, 5, 6, 7, 8, 9)]
    # 5..7 read again before the 8 in hand (the windows' marks skip them), then redelivered
    assert takes(order, agent, delivered) == [5, 6, 7, 8, 5, 6, 7, 8, 9]
    assert partition.reads == [(5, 8)]
    assert skipped == [(Hole(TOPIC, 0, 5, 8), 5)]


def test_a_partition_back_from_another_member_starts_at_its_head() -> None:
    partition = Partition(list(range(40)))
    floor = Floor({TP0: 0})
    order, agent, skipped = in_order(partition, floor)
    assert takes(order, agent, [(TP0, o) for o in range(5)]) == list(range(5))
    floor.rebalance({TP0: 30})  # another read side took 5..29 meanwhile and committed them
    assert takes(order, agent, [(TP0, 30), (TP0, 31)]) == [30, 31]
    assert (skipped, partition.reads) == ([], [])
    floor.rebalance({TP0: 30})
    assert takes(order, agent, [(TP0, 33)]) == [30, 31, 32, 33]  # skipped after the seek
    assert skipped == [(Hole(TOPIC, 0, 30, 33), 30)]


def test_a_record_in_hand_of_a_partition_no_longer_assigned_is_not_checked() -> None:
    partition = Partition(list(range(10)))
    floor = Floor({TP0: 0})
    order, agent, _ = in_order(partition, floor)
    assert takes(order, agent, [(TP0, 0)]) == [0]
    floor.rebalance({TP1: 0})  # TP0 went to another member
    assert takes(order, agent, [(TP0, 4)]) == [4]
    assert partition.reads == []


@given(
    markers=st.sets(st.integers(0, 59), max_size=20),
    dropped=st.sets(st.integers(0, 59), max_size=20),
    head=st.integers(0, 30),
)
def test_whatever_faust_drops_every_committed_record_from_the_head_on_is_applied_once_in_order(
    markers: set[int], dropped: set[int], head: int
) -> None:
    committed = sorted(set(range(60)) - markers)
    delivered = [o for o in committed if o >= head and o not in dropped]
    partition = Partition(committed)
    order, agent, _ = in_order(partition, Floor({TP0: head}))
    applied = takes(order, agent, [(TP0, o) for o in delivered])
    last = delivered[-1] if delivered else head - 1
    assert applied == [o for o in committed if head <= o <= last]
