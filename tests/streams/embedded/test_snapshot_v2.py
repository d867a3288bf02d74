"""The compact snapshot (version 2) gives back the very state it was written from (tables with
their rounds, meters with open rounds, hits, a configuration change waiting for its safe point),
still reads version 1, and refuses a configuration text that does not match its digest."""

from __future__ import annotations

import json
from itertools import islice

import pytest

from controller.evolve import evolve_many
from controller.fast import Session
from controller.floor import decide
from controller.model.state import FloorState
from controller.snapshot import state_to_dict
from streams.embedded import snapshot as snapshot_module
from streams.embedded.snapshot import (
    decode_snapshot,
    decode_table,
    encode_snapshot,
    load_snapshot,
)
from tests.controller.fast.differential import CEILINGS, disturbed_floor, run_both
from tests.controller.scenario_builders import PA


def _states(text: str = PA) -> list[FloorState]:
    """States along a disturbed simulated floor (jackpots, voids, rate changes, corrections;
    with low ceilings: overflow carried and diverted)."""
    steps = islice(disturbed_floor(6_000, seed=4, text=text), 6_300)
    _, log, _ = run_both(steps, check_every=10_000)
    states, state = [], FloorState()
    for start in range(0, len(log), 700):
        state = evolve_many(state, log[start : start + 700])
        states.append(state)
    return states


STATES = _states() + _states(CEILINGS)


def test_every_state_comes_back_equal() -> None:
    assert any(s.pending_config is not None for s in STATES)
    assert any(len(s.hits) > 0 for s in STATES)
    meters = [m for s in STATES for m in s.meters.values()]
    assert any(m.overflow_sub for m in meters)
    assert any(m.transferred_sub for m in meters)
    for state in STATES:
        blob = encode_snapshot(state)
        assert blob.startswith(b'{"snapshot_version":2,')
        back = decode_snapshot(blob)
        assert back == state
        assert back.config == state.config


def test_a_version_1_snapshot_still_loads() -> None:
    state = STATES[-1]
    blob = json.dumps(state_to_dict(state), separators=(",", ":")).encode()
    assert decode_snapshot(blob) == state


def test_a_configuration_text_that_does_not_match_its_digest_is_refused() -> None:
    raw = json.loads(encode_snapshot(STATES[-1]))
    raw["config_event"]["text"] += "\n# edited\n"
    with pytest.raises(ValueError, match="digest"):
        decode_snapshot(json.dumps(raw, separators=(",", ":")).encode())


def test_a_snapshot_that_does_not_decode_is_refused() -> None:
    blob = encode_snapshot(STATES[-1]).replace(b'"amount_sub":', b'"amount_sub":"x","y":', 1)
    with pytest.raises(ValueError, match="does not decode"):
        decode_snapshot(blob)


def test_a_session_over_deferred_tables_decides_as_the_reference() -> None:
    """A restart decodes each table when first used; deciding from there equals the reference
    deciding from the whole state, and reading the state decodes the rest."""
    steps = list(islice(disturbed_floor(3_000, seed=6), 3_200))
    reference, _, _ = run_both(steps[:2_000], check_every=10_000)
    base, deferred = load_snapshot(encode_snapshot(reference))
    assert deferred
    assert not base.tables
    session = Session(base, deferred, decode_table)
    for step in steps[2_000:]:
        command = step(reference) if callable(step) else step
        expected = decide(reference, command)
        reference = evolve_many(reference, expected)
        assert session.step(command) == expected
    assert session.state() == reference


def test_a_rollback_point_gives_back_the_state_it_was_taken_at() -> None:
    state = STATES[-1]
    base, deferred = load_snapshot(encode_snapshot(state))
    session = Session(base, deferred, decode_table)
    back = session.rollback_point()
    for step in islice(disturbed_floor(500, seed=8), 1, 500):
        if not callable(step):
            session.step(step)
    assert back().state() == state


def test_a_state_with_fields_version_2_does_not_know_is_written_as_version_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another part of the rules may give the meters or the floor new fields: the snapshot then
    stays version 1 (every field) rather than a version 2 that would drop one."""
    monkeypatch.setattr(snapshot_module, "_SHAPES_KNOWN", False)
    state = STATES[-1]
    blob = encode_snapshot(state)
    assert json.loads(blob)["snapshot_version"] == 1
    assert decode_snapshot(blob) == state
