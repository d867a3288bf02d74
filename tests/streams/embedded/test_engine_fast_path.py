"""The engine on the fast path: a failed append leaves the state where the log is (the session is
put back), and the engine's state always equals a clean fold of its log by the reference."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from controller.evolve import evolve_many
from controller.model.state import FloorState
from streams.adapters.memory import MemoryLog
from streams.codec import decode
from streams.embedded.engine import EmbeddedController
from streams.ports import LogRecord
from tests.streams.http.support import AKQ_SPADES, CONFIG, full_round


class FlakyLog(MemoryLog):
    """A memory log whose next append can be made to fail (a full disk, a lost connection)."""

    fail_next = False

    def append(self, records: Sequence[LogRecord]) -> int:
        if self.fail_next:
            self.fail_next = False
            raise OSError("disk full")
        return super().append(records)


def _reference_fold(log: MemoryLog) -> FloorState:
    return evolve_many(FloorState(), [decode(record.payload) for record in log.read()])


def test_a_failed_append_puts_the_state_back_and_the_retry_is_accepted() -> None:
    log = FlakyLog()
    engine = EmbeddedController(log, log, snapshot_every=1_000_000)
    engine.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    before = engine.state
    log.fail_next = True
    with pytest.raises(OSError, match="disk full"):
        engine.submit(full_round(AKQ_SPADES))
    assert engine.state == before  # nothing of the failed batch stayed
    outcomes = engine.submit(full_round(AKQ_SPADES))
    assert {o.status for o in outcomes} == {"accepted"}
    assert engine.state != before
    assert engine.state == _reference_fold(log)


def test_the_engine_state_is_the_reference_fold_of_its_log() -> None:
    log = MemoryLog()
    engine = EmbeddedController(log, log, snapshot_every=1_000_000)
    engine.start(CONFIG.read_text(encoding="utf-8"), str(CONFIG))
    engine.submit(full_round(AKQ_SPADES))
    engine.submit(full_round(AKQ_SPADES))  # retries: duplicates, logged as nothing new
    engine.submit(full_round(("2c", "5d", "9h"), round_id="R2", start=7))
    assert engine.state == _reference_fold(log)
