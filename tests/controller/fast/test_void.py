"""The fast path decides every void the reference accepts (`controller.fast.void`).

Each rule scenario of voids (`tests/controller/rules/test_rules_void.py` and the ceiling's voids
in `test_rules_ceiling.py`: exact reversal, the reserve, every meter the round fed, only its own
round, after another table's royal or a correction (only what is still there, the reason says
so), the overflow first, a diverted part left where it went) already steps the fast session
beside the reference and requires the same events and state (`tests.controller.scenario`). Run
here with the reference guarded, they also require that the session decided each accepted void
itself: a fallback to the reference would hide a wrong fast answer. The reference still words
every refusal (a void after settlement, twice, of a voided round).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from controller.fast import session
from controller.floor import Command, decide
from controller.model.events import Event, EventRejected
from controller.model.state import FloorState
from controller.model.table_events import RoundVoided
from tests.controller.rules import test_rules_ceiling, test_rules_void

VOID_TESTS: list[Callable[[], None]] = [
    *(getattr(test_rules_void, name) for name in dir(test_rules_void) if name.startswith("test_")),
    test_rules_ceiling.test_a_void_takes_back_the_overflow_first,
    test_rules_ceiling.test_a_void_leaves_a_diverted_part_where_it_went_and_says_so,
]


@pytest.fixture
def fast_voids(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The reasons of the voids the reference refused; fails on one it accepted. The guard is
    on the reference's `decide` as `Session.reference` calls it (a module global, looked up on
    each call even when compiled; a compiled class's method cannot be patched for its callers)."""
    original = decide
    refused: list[str] = []

    def guarded(state: FloorState, command: Command) -> tuple[Event, ...]:
        events = original(state, command)
        if isinstance(command, RoundVoided):
            assert len(events) == 1, "an accepted void fell back to the reference"
            assert isinstance(events[0], EventRejected)
            refused.append(events[0].reason)
        return events

    monkeypatch.setattr(session, "decide", guarded)
    return refused


@pytest.mark.parametrize("scenario", VOID_TESTS, ids=lambda test: test.__name__)
def test_the_session_decides_each_accepted_void_itself(
    scenario: Callable[[], None], fast_voids: list[str]
) -> None:
    scenario()


def test_the_reference_still_words_a_refused_void(fast_voids: list[str]) -> None:
    test_rules_void.test_a_void_after_settlement_is_refused()
    assert fast_voids
    assert "void after settlement is refused" in fast_voids[0]
