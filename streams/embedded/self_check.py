"""The background self-check: the log on disk still folds to the state being served.

Start-up walks the hash chain only after the snapshot it restores from (the snapshot itself is
authenticated, and names the chain hash at its position: `streams.embedded.integrity`). This
check walks the chain from the first record and refolds the whole log from nothing to the
position the served state reflects, comparing the two (GLI-12: a self-check, and the exact prior
state); it runs at once after start-up, then every ``--self-check-every`` seconds, and keeps its
status in `EmbeddedController.full_check` (running / passed / failed, with the position) for
/readyz. On a break it sets `EmbeddedController.integrity_fault`: from then on nothing is
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
import time

from controller.floor import evolve_many
from controller.model.errors import JackpotError, LogTampered
from controller.model.state import FloorState
from streams.clock import utc_now
from streams.codec import decode
from streams.embedded.engine import EmbeddedController
from streams.embedded.integrity import CheckStatus
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
    return _check(controller, log)[0]


def _check(controller: EmbeddedController, log: EventLog) -> tuple[str, int]:
    """`check_once`'s answer and a position: the first record that breaks the chain, else the
    position the served state reflects (the one checked up to, or the one that differs)."""
    served, position = controller.view_unlocked()
    try:
        if isinstance(log, ChainedLog):
            log.verify()
        folded, reached = fold_until(log, FloorState(), 0, position)
    except LogTampered as exc:
        return str(exc), exc.position
    except (JackpotError, ValueError, KeyError, TypeError) as exc:
        return str(exc), position
    if reached != position or folded != served:
        return f"the log refolded to position {position} differs from the state served", position
    return "", position


def run_check(controller: EmbeddedController, log: EventLog, stop: threading.Event) -> bool:
    """One full check, its status kept in ``controller.full_check``; False on a break, which
    stops every write (`integrity_fault`) and is logged naming the position. A failure after
    ``stop`` (the log closed under it at shutdown) is no finding."""
    began, last = time.monotonic(), controller.full_check
    controller.full_check = CheckStatus("running", last.position, utc_now())
    fault, position = _check(controller, log)
    if stop.is_set():
        controller.full_check = last
        return False
    if fault:
        controller.integrity_fault = fault
        controller.full_check = CheckStatus("failed", position, utc_now(), fault)
        logger.error("integrity self-check failed at position %d: %s", position, fault)
        return False
    controller.full_check = CheckStatus("passed", position, utc_now())
    seconds = time.monotonic() - began
    logger.info("integrity self-check passed: chain and refold to %d (%.1f s)", position, seconds)
    return True


def run_self_check(
    controller: EmbeddedController, log: EventLog, every: float, stop: threading.Event
) -> None:
    """The full check at once (start-up walked only the chain after its snapshot), then every
    ``every`` seconds (0: never again) until ``stop``; the first break is kept and logged."""
    if stop.is_set() or not run_check(controller, log, stop):
        return
    while every > 0 and not stop.wait(every):
        if not run_check(controller, log, stop):
            return
