"""Offsets faust did not deliver, checked before it may commit past them.

A ``read_committed`` consumer is never given a transaction's commit marker nor an aborted
record, so the offsets it delivers from a transactional topic have holes. faust-streaming 0.15.3
counts any jump in the offsets it delivers as such a hole (`Consumer._add_gap`) and later commits
past it as if it had been taken. A record faust fetched and never handed to the agent is then
lost for good: measured, the kill test lost one committed record in about 1 run in 6 after the
restart (`tests/integration/test_kafka_readside.py`: the agent took offsets 223 and 225 of a
partition, never 224, a ``contribution_recorded``; the group committed past it).

So a hole is believed only after a ``read_committed`` read of it: the first committed record at
or after its start must be the record faust delivered next (or later). Until then faust may not
commit past it (its commit stops at the first offset it has neither taken nor been told is a
hole; at the head, the first offset not committed, only with the read side's own test, as
faust's lets the head pass: `transport.head_taken`), so a lag costs time, never a record. If
the read finds a record inside the hole, the read side logs it and exits with `EXIT_STALLED`
at once (crash-only, as the stall watch does): the supervisor starts it again, it reads again
from the committed offset, which is below the record, and the aggregates skip what they
already hold (idempotent by offset).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from controller.model.errors import StoreUnavailable
from streams.scaleout.readside.stall import exit_for_supervisor

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

    def holds(self, offset: int | None) -> bool:
        """Whether a committed record at ``offset`` (None: none at all) lies inside the hole."""
        return offset is not None and self.start <= offset < self.stop


CommittedIn = Callable[[str, int, int, int], "list[int]"]
"""(topic, partition, start, stop) -> the offsets of the committed records with
``start <= offset < stop``, in order; StoreUnavailable when the broker does not answer."""


def skipped_message(hole: Hole, offset: int) -> str:
    """The log line before the exit: what faust skipped, and what happens next."""
    return (
        f"readside: faust skipped the committed record {hole.partition}:{offset} of {hole.topic} "
        f"(it delivered {hole.partition}:{hole.stop} next) and would commit past it; exiting "
        "for the supervisor to restart the read side from the group's committed offset"
    )


def exit_skipped(hole: Hole, offset: int) -> NoReturn:
    """Log why and leave at once: faust's commit is held below the record, so the restart
    reads it again (module docstring)."""
    exit_for_supervisor(skipped_message(hole, offset))


class GapGuard:
    """Checks the holes faust reports. The holes of a partition that wait while a read runs are
    checked together by the next read (from the first one's start to the last one's stop: one
    fetch for a run of transactions), in a thread, off faust's loop."""

    def __init__(
        self,
        committed_in: CommittedIn,
        on_skipped: Callable[[Hole, int], None],
        on_empty: Callable[[], None] = lambda: None,
    ) -> None:
        self.committed_in = committed_in
        self.on_skipped = on_skipped
        self.on_empty = on_empty  # a hole read and found empty (the metrics count them)
        self.lock = asyncio.Lock()
        #: per partition, the holes reported and not yet read (each with a ticket of its own: a
        #: hole faust reports twice is checked twice)
        self.waiting: dict[tuple[str, int], list[tuple[object, Hole]]] = {}
        self.found: dict[object, int | None] = {}  # by ticket: the record inside (None: empty)

    async def empty(self, hole: Hole) -> bool:
        """True once a read shows no committed record inside ``hole``; False (after
        ``on_skipped``) if it holds one. A failed read is tried again until it answers."""
        ticket = object()
        self.waiting.setdefault((hole.topic, hole.partition), []).append((ticket, hole))
        async with self.lock:
            if ticket not in self.found:
                await self._read_waiting(hole.topic, hole.partition)
        inside = self.found.pop(ticket)
        if inside is not None:
            self.on_skipped(hole, inside)
            return False
        self.on_empty()
        return True

    async def _read_waiting(self, topic: str, partition: int) -> None:
        """Decide every hole of the partition waiting now with one read."""
        holes = self.waiting.pop((topic, partition))
        start = min(hole.start for _t, hole in holes)
        stop = max(hole.stop for _t, hole in holes)
        offsets = await self._committed(topic, partition, start, stop)
        for ticket, hole in holes:
            self.found[ticket] = next((o for o in offsets if hole.holds(o)), None)

    async def _committed(self, topic: str, partition: int, start: int, stop: int) -> list[int]:
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
