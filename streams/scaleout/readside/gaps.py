"""Offsets faust did not deliver, read before anything passes them.

A ``read_committed`` consumer is never given a transaction's commit marker nor an aborted
record, so the offsets it delivers from a transactional topic have holes. faust-streaming 0.15.3
counts any jump in the offsets it delivers as such a hole (`Consumer._add_gap`) and later commits
past it as if it had been taken. It also drops records: measured, the kill test lost one
committed record in about 1 run in 6 after the restart (the agent took offsets 223 and 225 of a
partition, never 224, a ``contribution_recorded``; the group committed past it), and faust
sometimes never hands over a record it fetched while it sought after a start.

So the agent believes a jump in the offsets only after a ``read_committed`` read of it: the
committed records inside it are fetched from the broker (~1 ms a read on a local broker).
Empty (markers and aborted records), it is passed. Holding records faust skipped, the agent
applies them from the read, in offset order, before the record after the jump (`order`); the
commit follows the agent (`transport`), so a lag costs time, never a record.

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


CommittedIn = Callable[[str, int, int, int], "list[CommittedRecord]"]
"""(topic, partition, start, stop) -> the committed records with ``start <= offset < stop``,
in order; StoreUnavailable when the broker does not answer."""


def skipped_message(hole: Hole, records: list[CommittedRecord]) -> str:
    """The log line when faust skipped committed records: how many, where, and what happens to
    them (a run after a rebalance can hold thousands: their first and last offsets only)."""
    first, last = records[0][0], records[-1][0]
    return (
        f"readside: faust skipped {len(records)} committed record(s) of {hole.topic}"
        f"[{hole.partition}] (offsets {first} to {last}; it delivered {hole.stop} next): read "
        "from the broker and applied in offset order"
    )


class GapGuard:
    """Reads the jumps the agent finds (`order`), in a thread, off faust's loop."""

    def __init__(
        self, committed_in: CommittedIn, on_empty: Callable[[], None] = lambda: None
    ) -> None:
        self.committed_in = committed_in
        self.on_empty = on_empty  # a hole read and found empty (the metrics count them)

    async def inside(self, hole: Hole) -> list[CommittedRecord]:
        """The committed records inside ``hole``, in order (an empty hole is counted by
        ``on_empty``). A failed read is tried again until it answers."""
        topic, partition = hole.topic, hole.partition
        while True:
            try:
                records = await asyncio.to_thread(
                    self.committed_in, topic, partition, hole.start, hole.stop
                )
                break
            except StoreUnavailable as exc:
                logger.warning(
                    "readside: cannot read %s[%d] %d..%d yet: %s",
                    topic,
                    partition,
                    hole.start,
                    hole.stop,
                    exc,
                )
                await asyncio.sleep(RETRY_S)
        if not records:
            self.on_empty()
        return records
