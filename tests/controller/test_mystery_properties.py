"""Conservation over random floors with a mystery level armed whenever it waits for a draw.

The property tests' sessions (`tests.strategies.sessions`) play the example floor, here with the
$5 table's progressive feeding a mystery level from $100.00 to $103.00 (so most sessions hit it,
often several times): money is conserved on every meter after every step, a refused input changes
nothing, every mystery hit pays its trigger inside [reset, must_hit_by) (GLI-12 / N.J.A.C.
13:69E-1.39B), and the audit verifies every reveal of the log.
"""

from __future__ import annotations

import random

from hypothesis import given as for_all
from hypothesis import strategies as st

from controller.floor import decide, evolve_many
from controller.model.commands import ActivateConfig, ArmMystery
from controller.model.events import Event, EventRejected, ProgressiveHit
from controller.model.money import SUBUNITS_PER_CENT
from controller.model.state import FloorState
from controller.mystery import MYSTERY_SHARE, audit, unarmed, with_trigger
from tests.controller.test_mystery import MYSTERY
from tests.controller.test_properties import PROPERTY, assert_conserved, command_for
from tests.strategies import SessionStep, sessions

TIGHT = MYSTERY.replace('must_hit_by = "110.00"', 'must_hit_by = "103.00"')
START = ActivateConfig(
    command_id="activate-1",
    source="mystery.toml",
    text=TIGHT,
    by="manager-1",
    occurred_at="2026-01-01T00:00:00.000Z",
)


def _armed(state: FloorState, rng: random.Random, log: list[Event]) -> FloorState:
    """What the edge does after every batch: draw for each level that waits, and unseal it."""
    for meter_id in unarmed(state):
        trigger, salt = rng.randrange(10_000, 10_300), rng.randbytes(16).hex()
        command = ArmMystery(
            command_id=f"arm-{len(log)}",
            meter_id=meter_id,
            trigger_cents=trigger,
            salt=salt,
            sealed="sealed",
            occurred_at="2026-01-02T00:00:00.000Z",
        )
        events = decide(state, command)
        assert not isinstance(events[0], EventRejected), events
        log.extend(events)
        state = with_trigger(evolve_many(state, events), meter_id, trigger, salt)
    return state


@PROPERTY
@for_all(sessions(), st.randoms(use_true_random=False))
def test_money_is_conserved_and_every_mystery_hit_is_fair(
    steps: list[SessionStep], rng: random.Random
) -> None:
    log: list[Event] = []
    state = FloorState()
    for number, step in enumerate((None, *steps)):
        command = START if step is None else command_for(state, step, number)
        events = decide(state, command)
        after = evolve_many(state, events)
        if isinstance(events[0], EventRejected):
            assert len(events) == 1
            assert after == state
        log.extend(events)
        state = _armed(after, rng, log)
        assert_conserved(state)
        for hit in (e for e in events if isinstance(e, ProgressiveHit)):
            if hit.share == MYSTERY_SHARE:
                assert 10_000 <= hit.amount_cents < 10_300
                assert hit.amount_cents * SUBUNITS_PER_CENT <= hit.meter_before_sub
    assert audit(log).ok
