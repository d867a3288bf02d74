"""`evolve_many(state, events)` is `reduce(evolve, events, state)`: a run of events applied with
the maps mutated in place must land on the very state the event-by-event fold reaches, wherever the
run starts and ends (including configuration changes that wait for a safe point)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import given as for_all
from hypothesis import strategies as st

from controller.floor import decide, evolve, evolve_many
from controller.model.commands import ActivateConfig
from controller.model.events import ConfigActivated, ConfigChangeScheduled, Event
from controller.model.state import FloorState
from tests.controller.scenario import PA, activate, given, locked_round, voided, wager
from tests.controller.test_properties import START, command_for
from tests.strategies import SessionStep, sessions

FIFTEEN = PA.replace('primary_rate = "14%"', 'primary_rate = "15%"')


def _change(number: int, text: str) -> ActivateConfig:
    return ActivateConfig(
        command_id=f"change-{number}",
        source="pa.toml",
        text=text,
        by="manager-2",
        occurred_at=f"2026-01-02T01:00:{number % 60:02d}.000Z",
    )


@st.composite
def sessions_with_changes(draw: st.DrawFn) -> list[SessionStep | ActivateConfig]:
    """A session with rate changes (14% <-> 15%) slipped in; mid-round they wait (scheduled)."""
    steps: list[SessionStep | ActivateConfig] = list(draw(sessions()))
    for number in range(draw(st.integers(0, 3))):
        text = FIFTEEN if number % 2 == 0 else PA
        steps.insert(draw(st.integers(0, len(steps))), _change(number, text))
    return steps


def _fold(steps: list[SessionStep | ActivateConfig]) -> tuple[list[FloorState], list[Event]]:
    """Every state the event-by-event fold passes through (``states[k]`` after ``k`` events)."""
    state, states, log = FloorState(), [FloorState()], []
    for number, step in enumerate((START, *steps)):
        command = step if isinstance(step, ActivateConfig) else command_for(state, step, number)
        for event in decide(state, command):
            state = evolve(state, event)
            states.append(state)
            log.append(event)
    return states, log


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@for_all(sessions_with_changes(), st.data())
def test_a_run_of_events_lands_where_the_fold_lands(
    steps: list[SessionStep | ActivateConfig], data: st.DataObject
) -> None:
    states, log = _fold(steps)
    assert evolve_many(FloorState(), log) == states[-1]
    start = data.draw(st.integers(0, len(log)), label="start")
    end = data.draw(st.integers(start, len(log)), label="end")
    assert evolve_many(states[start], log[start:end]) == states[end]


def test_a_scheduled_change_and_its_activation_in_one_run() -> None:
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00")))
    before = scenario.state
    first = len(scenario.log)
    scenario.events(activate(FIFTEEN))
    scheduled = scenario.log[first:]
    assert [type(e) for e in scheduled] == [ConfigChangeScheduled]
    waiting = evolve_many(before, scheduled)
    assert waiting.pending_config == scheduled[0]
    assert waiting.config_version == 1
    scenario.when(voided("misdeal"))  # the link goes idle: the change applies
    run = scenario.log[first:]
    assert any(isinstance(e, ConfigActivated) for e in run)
    after = evolve_many(before, run)
    assert after == scenario.state
    assert after.pending_config is None
    assert after.config_version == 2


def test_no_events_is_the_same_state() -> None:
    state = given().events(*locked_round("tcp-1", "r1", wager(1, "progressive", "1.00"))).state
    assert evolve_many(state, ()) == state
