"""Holes in the offsets faust delivers are read: the committed records inside, with their values
(`streams.scaleout.readside.gaps`), without a broker: the reads are a function over a
hand-written partition."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.lag import CommittedRecord
from streams.scaleout.readside import gaps
from streams.scaleout.readside.gaps import GapGuard, Hole

TOPIC = "floor.events"


@dataclass
class Partition:
    """The committed records of one partition (their offsets), as a read_committed read sees
    them; ``failures`` reads fail before one answers."""

    committed: list[int]
    failures: int = 0
    reads: list[tuple[int, int]] = field(default_factory=list)

    def committed_in(
        self, topic: str, partition: int, start: int, stop: int
    ) -> list[CommittedRecord]:
        self.reads.append((start, stop))
        if self.failures:
            self.failures -= 1
            msg = "broker away"
            raise StoreUnavailable(msg)
        return [record(o) for o in sorted(self.committed) if start <= o < stop]


def record(offset: int) -> CommittedRecord:
    """The committed record at ``offset`` (its value names it)."""
    return offset, f"record {offset}".encode()


def guard_over(partition: Partition) -> tuple[GapGuard, list[tuple[Hole, int]], list[int]]:
    """A guard over ``partition``; the holes read that held records (with the first inside)
    and a count of the empty ones."""
    skipped: list[tuple[Hole, int]] = []
    empties: list[int] = []
    guard = GapGuard(partition.committed_in, lambda: empties.append(1))
    read = guard.inside

    async def recorded(hole: Hole) -> list[CommittedRecord]:
        found = await read(hole)
        if found:
            skipped.append((hole, found[0][0]))
        return found

    guard.inside = recorded  # type: ignore[method-assign]
    return guard, skipped, empties


def test_a_marker_is_an_empty_hole_and_a_skipped_record_is_read_with_its_value() -> None:
    # records 0-2, a commit marker at 3, records 4-6 (the one at 5 never delivered by faust)
    partition = Partition([0, 1, 2, 4, 5, 6])
    guard, skipped, empties = guard_over(partition)
    marker = Hole(TOPIC, 0, 3, 4)  # faust delivered 2, then 4
    lost = Hole(TOPIC, 0, 5, 6)  # faust delivered 4, then 6
    assert asyncio.run(guard.inside(marker)) == []
    assert asyncio.run(guard.inside(lost)) == [(5, b"record 5")]
    assert skipped == [(lost, 5)]
    assert empties == [1]


def test_a_failed_read_is_tried_again_until_it_answers(monkeypatch: Any) -> None:
    monkeypatch.setattr(gaps, "RETRY_S", 0.0)
    partition = Partition([0, 9], failures=2)
    guard, skipped, _ = guard_over(partition)
    assert asyncio.run(guard.inside(Hole(TOPIC, 1, 1, 9))) == []
    assert partition.reads == [(1, 9)] * 3
    assert skipped == []


@given(
    records=st.sets(st.integers(0, 60), min_size=1, max_size=40),
    data=st.data(),
)
def test_a_read_gives_exactly_the_committed_records_inside_in_order(
    records: set[int], data: st.DataObject
) -> None:
    stop = data.draw(st.sampled_from(sorted(records)))  # faust delivers a committed record
    start = data.draw(st.integers(0, stop))
    guard, _, empties = guard_over(Partition(sorted(records)))
    found = asyncio.run(guard.inside(Hole(TOPIC, 2, start, stop)))
    inside = sorted(o for o in records if start <= o < stop)
    assert found == [record(o) for o in inside]
    assert len(empties) == (0 if inside else 1)


def test_holes_read_at_once_each_get_their_own_records() -> None:
    # markers at 3, 7 and 11; faust never delivered the record at 9
    partition = Partition([0, 1, 2, 4, 5, 6, 8, 9, 10, 12])
    guard, skipped, empties = guard_over(partition)
    holes = [
        Hole(TOPIC, 0, 3, 4),
        Hole(TOPIC, 0, 7, 8),
        Hole(TOPIC, 0, 9, 10),
        Hole(TOPIC, 0, 11, 12),
    ]

    async def scenario() -> list[list[CommittedRecord]]:
        return list(await asyncio.gather(*(guard.inside(h) for h in holes)))

    assert asyncio.run(scenario()) == [[], [], [record(9)], []]
    assert sorted(partition.reads) == [(3, 4), (7, 8), (9, 10), (11, 12)]
    assert skipped == [(holes[2], 9)]
    assert len(empties) == 3


def test_a_long_run_of_skipped_records_is_logged_by_its_ends() -> None:
    said = gaps.skipped_message(Hole(TOPIC, 1, 1, 1440), [record(o) for o in range(1, 1440)])
    assert "faust skipped 1439 committed record(s) of floor.events[1]" in said
    assert "(offsets 1 to 1439; it delivered 1440 next)" in said
    assert len(said) < 200
