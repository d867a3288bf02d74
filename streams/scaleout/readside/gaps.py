"""Offsets faust did not deliver, read before anything passes them.

A ``read_committed`` consumer is never given a transaction's commit marker nor an aborted
record, so the offsets it delivers from a transactional topic have holes. faust-streaming 0.15.3
counts any jump in the offsets it delivers as such a hole (`Consumer._add_gap`) and later commits
past it as if it had been taken. It also drops records: measured, the kill test lost one
committed record in about 1 run in 6 after the restart (the agent took offsets 223 and 225 of a
partition, never 224, a ``contribution_recorded``; the group committed past it), and faust
sometimes never hands over a record it fetched while it sought after a start.

So a hole is believed only after a ``read_committed`` read of it: the committed records inside
it are fetched from the broker (one fetch for a run of transactions, ~1 ms). Empty (markers and
aborted records), it is passed. Holding records faust skipped, the agent applies them from the
read, in offset order, before the record after the hole (`order`), and faust's commit passes
the hole only once the agent has (`transport.gap_after_check`). Until then faust may not commit
past it, so a lag costs time, never a record.

Sessions 25 and 26 exited for the supervisor instead, to read such a record again after a
restart; under load a fresh group needed up to 9 restarts in a row and CI's read side once did
not catch up in 300 s. Reading the record here costs one fetch and no restart.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.lag import CommittedRecord

logger = logging.getLogger(__name__)
RETRY_S = 1.0  # a read that failed (broker away) is tried again after this long


@dataclass(frozen=True, slots=True)
class Hole:
    """Offsets ``start`` .. ``stop - 1`` of a partition that faust skipped: it delivered the
    record at ``start - 1`` (or started there) and then the one at ``stop``."""

    topic: str
    partition: int
    start: int
    stop: int

    def holds(self, offset: int) -> bool:
        """Whether a committed record at ``offset`` lies inside the hole."""
        return self.start <= offset < self.stop


CommittedIn = Callable[[str, int, int, int], "list[CommittedRecord]"]
"""(topic, partition, start, stop) -> the committed records with ``start <= offset < stop``,
in order; StoreUnavailable when the broker does not answer."""


def skipped_message(hole: Hole, records: list[CommittedRecord]) -> str:
    """The log line when faust skipped committed records: which, and what happens to them."""
    offsets = ", ".join(str(offset) for offset, _value in records)
    return (
        f"readside: faust skipped {len(records)} committed record(s) of {hole.topic}"
        f"[{hole.partition}] (offsets {offsets}; it delivered {hole.stop} next): read from the "
        "broker and applied in offset order"
    )


class GapGuard:
    """Reads the holes faust reports. The holes of a partition that wait while a read runs are
    read together by the next read (from the first one's start to the last one's stop: one
    fetch for a run of transactions), in a thread, off faust's loop.

    ``taken`` answers how far the agent has taken a partition in order in the group's current
    generation (`order.TakenInOrder.taken_through`; None: not yet in this generation): the
    consumer passes a hole that held records only once the agent has applied them."""

    def __init__(
        self, committed_in: CommittedIn, on_empty: Callable[[], None] = lambda: None
    ) -> None:
        self.committed_in = committed_in
        self.on_empty = on_empty  # a hole read and found empty (the metrics count them)
        self.taken: Callable[[str, int], int | None] = lambda _topic, _partition: None
        self.lock = asyncio.Lock()
        #: per partition, the holes reported and not yet read (each with a ticket of its own: a
        #: hole faust reports twice is read twice)
        self.waiting: dict[tuple[str, int], list[tuple[object, Hole]]] = {}
        self.found: dict[object, list[CommittedRecord]] = {}  # by ticket: the records inside

    async def inside(self, hole: Hole) -> list[CommittedRecord]:
        """The committed records inside ``hole``, in order (an empty hole is counted by
        ``on_empty``). A failed read is tried again until it answers."""
        ticket = object()
        self.waiting.setdefault((hole.topic, hole.partition), []).append((ticket, hole))
        async with self.lock:
            if ticket not in self.found:
                await self._read_waiting(hole.topic, hole.partition)
        records = self.found.pop(ticket)
        if not records:
            self.on_empty()
        return records

    async def _read_waiting(self, topic: str, partition: int) -> None:
        """Answer every hole of the partition waiting now with one read."""
        holes = self.waiting.pop((topic, partition))
        start = min(hole.start for _t, hole in holes)
        stop = max(hole.stop for _t, hole in holes)
        records = await self._committed(topic, partition, start, stop)
        for ticket, hole in holes:
            self.found[ticket] = [record for record in records if hole.holds(record[0])]

    async def _committed(
        self, topic: str, partition: int, start: int, stop: int
    ) -> list[CommittedRecord]:
        while True:
            try:
                return await asyncio.to_thread(self.committed_in, topic, partition, start, stop)
            except StoreUnavailable as exc:
                logger.warning(
                    "readside: cannot read %s[%d] %d..%d yet: %s",
                    topic,
                    partition,
                    start,
                    stop,
                    exc,
                )
                await asyncio.sleep(RETRY_S)
