"""The background self-check: the log on disk still folds to the state being served.

Start-up walks the hash chain before it trusts the log (`EmbeddedController._restore`); this
check repeats that while the service runs and also refolds the whole log from nothing to the
position the served state reflects, comparing the two (GLI-12: a self-check, and the exact prior
state). On a break it sets `EmbeddedController.integrity_fault`: from then on nothing is
written (ingest and operator calls are 503 with the reason) and /readyz is 503, so no meter moves
or is vouched for until an operator has run `jackpot verify` and restored the database. The
state in memory is left as it is: it is what was decided, and the signs keep showing it.

A full refold costs what a restart without a snapshot costs (about 45,000 records a second on
one core here), in a background thread: run it hourly, not every minute, on a long log.
"""

from __future__ import annotations

import itertools
import logging
import threading

from controller.floor import evolve_many
from controller.model.errors import JackpotError
from controller.model.state import FloorState
from streams.codec import decode
from streams.embedded.engine import EmbeddedController
from streams.ports import ChainedLog, EventLog

logger = logging.getLogger(__name__)
FOLD_CHUNK = 1_000


def fold_until(log: EventLog, state: FloorState, after: int, until: int) -> tuple[FloorState, int]:
    """The log folded onto ``state`` from ``after`` up to position ``until``."""
    records = itertools.takewhile(lambda r: r.position <= until, log.read(after=after))
    position = after
    while chunk := list(itertools.islice(records, FOLD_CHUNK)):
        state = evolve_many(state, [decode(record.payload) for record in chunk])
        position = chunk[-1].position
    return state, position


def check_once(controller: EmbeddedController, log: EventLog) -> str:
    """Why the log no longer stands behind the served state ("" when it does)."""
    served, position = controller.view()
    try:
        if isinstance(log, ChainedLog):
            log.verify()
        folded, reached = fold_until(log, FloorState(), 0, position)
    except (JackpotError, ValueError, KeyError, TypeError) as exc:
        return str(exc)
    if reached != position or folded != served:
        return f"the log refolded to position {position} differs from the state served"
    return ""


def run_self_check(
    controller: EmbeddedController, log: EventLog, every: float, stop: threading.Event
) -> None:
    """Check every ``every`` seconds until ``stop``; the first break is kept and logged."""
    while not stop.wait(every):
        fault = check_once(controller, log)
        if fault:
            controller.integrity_fault = fault
            logger.error("integrity self-check failed: %s", fault)
            return
