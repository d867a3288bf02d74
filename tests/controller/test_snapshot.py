"""Snapshots: the state survives a trip through its JSON form exactly (a restart replays only the
log's tail, so a snapshot that lost or altered anything would silently pay wrongly)."""

from __future__ import annotations

import json

from controller.floor import replay
from controller.model.state import FloorState
from controller.snapshot import state_from_dict, state_to_dict
from tests.controller.scenario import PA, activate, given, locked_round, wager
from tests.controller.test_codec import busy_floor
from tests.controller.test_mystery import armed_floor


def round_trip(state: FloorState) -> FloorState:
    return state_from_dict(json.loads(json.dumps(state_to_dict(state))))


def test_a_busy_floor_survives_a_snapshot() -> None:
    state = busy_floor().state
    assert state.meters
    assert state.hits
    assert state.tables
    assert round_trip(state) == state


def test_open_rounds_and_a_pending_configuration_survive_a_snapshot() -> None:
    scenario = given().events(
        *locked_round("tcp-1", "r1", wager(1, "progressive", "1.00"), wager(2, "ante", "1.00"))
    )
    scenario.events(activate(PA.replace('primary_rate = "21%"', 'primary_rate = "22%"', 1)))
    state = scenario.state
    assert state.pending_config is not None
    assert state.meters["tcp-progressive"].open_rounds
    assert round_trip(state) == state


def test_an_empty_floor_survives_a_snapshot() -> None:
    assert round_trip(FloorState()) == FloorState()


def test_an_armed_mystery_trigger_stays_sealed_in_a_snapshot() -> None:
    # N.J.A.C. 13:69E-1.39B: the hit amount is not knowable before the hit, from a snapshot either.
    state = armed_floor(10_337).state
    assert state.meters["tcp-mystery"].mystery_trigger_cents == 10_337
    text = json.dumps(state_to_dict(state))
    assert "10337" not in text
    restored = round_trip(state).meters["tcp-mystery"]
    assert restored.mystery_trigger_cents == -1
    assert restored.mystery_commitment == state.meters["tcp-mystery"].mystery_commitment


def test_a_known_trigger_is_not_part_of_the_state_a_refold_is_compared_with() -> None:
    # A refold of the log cannot know the sealed trigger; it must still equal the state served.
    scenario = armed_floor(10_337)
    folded = replay(scenario.log)
    assert folded.meters["tcp-mystery"].mystery_trigger_cents == -1
    assert folded == scenario.state
