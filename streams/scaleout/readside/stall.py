"""The read side's stall watch: exit for the supervisor when faust stops committing or consuming.

faust-streaming 0.15.3 can lose its offset commits around a rebalance: after the hand-off the
process owns every partition, its consumer has read them to the end and its agent has applied
every record, but the group's committed offsets on the broker stay where they were while faust's
own record of what it committed is ahead of them (measured, 2026-12-02: broker 2563/1568/2660,
faust 2667/1714/2908, read offsets at the ends), so it never commits them again. Before this
watch the hand-off test failed about 3 runs in 7 on it ("did not commit up to ... in 120 s");
faust's tracker has reports of that shape (robinhood/faust#681, faust-streaming/faust#318). A
restart recovers cleanly every time: it reads from the broker's committed offsets again, and the
aggregates skip what they already hold (idempotent by sequence). So the answer here is
crash-only: when the process has owned partitions, out of any rebalance or restore, for
`limit_s` without taking one record, and a ``read_committed`` probe finds a committed record at
or after the group's committed offset of one of them, it logs why and exits with
`EXIT_STALLED`; the supervisor (Kubernetes, systemd) starts it again. The same watch catches a
consumer that stops delivering, whatever the cause.

Why the probe and not faust's own lag: a quiet partition of a transactional topic ends with a
commit marker that a ``read_committed`` consumer never delivers, so "committed offset below the
high watermark" is true of every caught-up partition. The probe reads from the committed offset
as a ``read_committed`` consumer outside the group (it never subscribes, so it never joins) and
sees only records the agent should have been given.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

logger = logging.getLogger(__name__)

EXIT_STALLED = 3
"""The exit code of a stalled read side (2 is a mistake in the options)."""

Waiting = dict[int, tuple[int, int]]
"""partition -> (the group's committed offset, the first committed record at or after it)."""


@dataclass
class StallWatch:
    """Counts the quiet time of a process that owns partitions and is not rebalancing.

    `took` is called for every record the agent takes (applied or not). `due` tells the timer
    the process has been settled, owning and given nothing for `limit_s`: only then is the
    probe worth its round trip, and `confirm` reads its answer."""

    limit_s: float
    since: float = 0.0  # when the current quiet stretch began (monotonic seconds)
    #: a record was taken since the last `due` (the first call starts a stretch too)
    heard: bool = True

    def took(self) -> None:
        self.heard = True

    def due(self, now: float, *, owning: bool, settled: bool) -> bool:
        """Whether the quiet stretch reached the limit. It starts again after a record, while
        the process owns nothing, and while it rebalances or restores (a long restore is not a
        stall)."""
        if self.heard or not owning or not settled:
            self.heard, self.since = False, now
            return False
        return now - self.since >= self.limit_s

    def confirm(self, now: float, waiting: Waiting) -> bool:
        """True (exit) if the probe found committed records waiting; otherwise the floor is
        just quiet, and the stretch starts again."""
        if not waiting:
            self.since = now
        return bool(waiting)


def stall_message(topic: str, waiting: Waiting, limit_s: float) -> str:
    """The log line before the exit: what was seen, and what happens next."""
    seen = ", ".join(
        f"{p} (committed {at}, a record at {first})" for p, (at, first) in sorted(waiting.items())
    )
    return (
        f"readside: stalled: partitions {seen} of {topic} have committed records past the "
        f"group's offsets and none was taken for {limit_s:.0f} s (faust after a rebalance, "
        f"faust-streaming#318); exiting with {EXIT_STALLED} for the supervisor to restart it"
    )


async def check_stall(
    app: Any, watch: StallWatch, owned: frozenset[int], probe: Callable[[list[int]], Waiting]
) -> Waiting:
    """The partitions the process stalls on (empty: none). faust's own flags say whether it
    rebalances or restores; the blocking probe runs in a thread, off faust's loop."""
    settled = not app.rebalancing and not app.tables.recovery.in_recovery
    if not watch.due(time.monotonic(), owning=bool(owned), settled=settled):
        return {}
    waiting = await asyncio.get_running_loop().run_in_executor(None, probe, sorted(owned))
    return waiting if watch.confirm(time.monotonic(), waiting) else {}


def exit_stalled(topic: str, waiting: Waiting, limit_s: float) -> NoReturn:
    """Leave at once (crash-only): nothing was taken for `limit_s`, so no write of this process
    is pending, and faust's orderly stop could hang on the stalled consumer."""
    exit_for_supervisor(stall_message(topic, waiting, limit_s))


def exit_for_supervisor(why: str) -> NoReturn:
    """Log ``why`` and leave with `EXIT_STALLED` at once, for the supervisor to start the read
    side again from the group's committed offsets."""
    leave(EXIT_STALLED, why, logging.ERROR)


def leave(code: int, why: str, level: int = logging.INFO) -> NoReturn:
    """Log ``why`` and end the process with ``code`` now, joining no thread: what is still out
    (a hole read or a stall probe in a thread, each up to its own timeouts; librdkafka's
    handles) holds nothing the read side must keep."""
    logger.log(level, why)
    logging.shutdown()
    os._exit(code)
