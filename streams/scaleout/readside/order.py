"""The agent applies the records of a partition in offset order, none skipped: before it
applies a record past a jump in the offsets, the jump is read (`gaps`) and any committed record
inside it is applied first, from the read.

The aggregates are idempotent by offset: a window keeps the offset of the last record it
applied and skips every record at or below it (`aggregate.apply`). That holds only if no
record below the mark is missing. faust-streaming 0.15.3 breaks it: measured under load, it
never handed the agent a record it had fetched while it sought after a start (partition 1
offset 38, a ``contribution_recorded`` of table tcp-5 in the floor's first hour: a record CI
lost), and handed over the next one, which would have moved the windows' marks past it.

So the agent keeps per partition the last offset taken in the group's current generation
(everything from the head up to it applied, or read as absent), holds the first record of a
partition after a seek to the head (the first offset not committed: what faust's seek starts
from), and reads each jump first: a marker or an aborted record reads empty; a record faust
skipped is applied from the read, in its place. After a rebalance the partition starts again
at its head, so a record redelivered or still in hand from the last generation is read or
taken again, and the windows' marks skip what they hold already.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from faust.types import TP

from streams.adapters.kafka.lag import CommittedRecord
from streams.scaleout.readside.gaps import Hole, skipped_message

logger = logging.getLogger(__name__)

Apply = Callable[[TP, CommittedRecord], None]
"""The agent's step for a record faust skipped (synchronous: its table writes are sent before
anything may commit past it)."""


class TakenInOrder:
    """Per partition, the last offset taken in this generation: a record past the next offset
    waits until the jump was read, and what the read found was applied (``apply``)."""

    def __init__(
        self,
        generation: Callable[[], int],
        head: Callable[[TP], Awaitable[int | None]],
        inside: Callable[[Hole], Awaitable[list[CommittedRecord]]],
        apply: Apply,
    ) -> None:
        self.generation = generation  # the consumer group's generation now
        #: a partition's head after this generation's seek (waits for it; None: not assigned)
        self.head = head
        self.inside = inside
        self.apply = apply
        self.last: dict[TP, int] = {}
        self.checked: dict[TP, int] = {}  # the generation whose head each partition was held to

    async def take(self, tp: TP, offset: int) -> None:
        """Return once the record at ``offset`` may be applied: everything from the head below
        it was taken, read absent, or applied from the read."""
        generation = self.generation()
        if self.checked.get(tp) != generation:
            head = await self.head(tp)
            if head is None:
                return  # in hand from a partition no longer assigned: applied as delivered
            self.last[tp] = head - 1  # after a seek: below the head, committed and applied
            self.checked[tp] = generation
        last = self.last[tp]
        if offset > last + 1:
            hole = Hole(tp.topic, tp.partition, last + 1, offset)
            records = await self.inside(hole)
            if records:
                logger.warning(skipped_message(hole, records))
            for record in records:  # no await: all applied before the commit may see them
                self.apply(tp, record)
        self.last[tp] = max(self.last[tp], offset)

    def taken_through(self, tp: TP) -> int | None:
        """The last offset taken of a partition in the group's current generation (None: none
        yet): every committed record up to it was applied by this process."""
        if self.checked.get(tp) != self.generation():
            return None
        return self.last.get(tp)
