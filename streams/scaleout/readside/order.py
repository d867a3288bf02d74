"""The agent applies the records of a partition in offset order, with no committed record
skipped: before it applies a record past a jump in the offsets, the jump is read and must hold
no committed record (`gaps`).

The aggregates are idempotent by offset: a window keeps the offset of the last record it
applied and skips every record at or below it (`aggregate.apply`). That holds only if no
record below the mark is missing. faust-streaming 0.15.3 breaks it: measured under load, it
never handed the agent a record it had fetched while it sought after a start (partition 1
offset 38, a ``contribution_recorded`` of table tcp-5 in the floor's first hour: the record the
CI run lost), and handed over the next one, which moved the windows' marks past it. The
consumer's checks (`transport`) then held the commit below it and the read side exited for
its supervisor, but the restart read it again only to skip it as applied already: lost.

So the check runs here, before the record is applied: the agent keeps per partition the last
offset taken (everything at or below it applied or read as absent), the first record of a
partition after a seek is checked against the head (the first offset not committed: what
faust's seek starts from), and a jump is read first. A record inside makes the read side exit
at once (`gaps.exit_skipped`), the marks still below it, so the restart counts it. A jump is
one read (~1 ms on a local broker), the holes of a partition that wait meanwhile read together.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from faust.types import TP

from streams.scaleout.readside.gaps import Hole


class TakenInOrder:
    """Per partition, the last offset taken: a record past the next offset waits until the
    jump was read empty (``empty``: the gap guard's read, which exits on a record inside)."""

    def __init__(
        self,
        generation: Callable[[], int],
        head: Callable[[TP], Awaitable[int]],
        empty: Callable[[Hole], Awaitable[bool]],
    ) -> None:
        self.generation = generation  # the consumer group's generation now
        self.head = head  # a partition's head after this generation's seek (waits for it)
        self.empty = empty
        self.last: dict[TP, int] = {}
        self.checked: dict[TP, int] = {}  # the generation whose head each partition was held to

    async def take(self, tp: TP, offset: int) -> bool:
        """True once the record at ``offset`` may be applied: everything below it was taken
        or read absent. False if the read found a record skipped (the guard exits then)."""
        generation = self.generation()
        last = self.last.get(tp, -1)
        if self.checked.get(tp) != generation:
            # after a seek: not below the head (records there are committed, applied), and a
            # record of the last generation still in hand continues from where it was
            last = max(last, await self.head(tp) - 1)
            self.checked[tp] = generation
        if offset > last + 1 and not await self.empty(
            Hole(tp.topic, tp.partition, last + 1, offset)
        ):
            return False
        self.last[tp] = max(last, offset)
        return True
