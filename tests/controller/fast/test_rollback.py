"""`Session.rollback_point` taken with tables in play: the point copies the changed tables rather
than freezing them, so what it gives back must share nothing with the session that goes on."""

from __future__ import annotations

from itertools import islice

import pytest

from controller.fast import Session
from controller.floor import Command
from controller.model.state import FloorState
from tests.controller.fast.differential import CEILINGS, disturbed_floor
from tests.controller.scenario_builders import PA


def _commands(text: str, seed: int) -> list[Command]:
    """A disturbed simulated floor (voids, refusals, hits, corrections), its plain commands."""
    steps = islice(disturbed_floor(1_500, seed=seed, text=text), 1_600)
    return [step for step in steps if not callable(step)]


@pytest.mark.parametrize(("text", "seed"), [(PA, 3), (CEILINGS, 5)])
@pytest.mark.parametrize("cut", [40, 333, 777])
def test_a_rollback_point_with_rounds_in_play_gives_back_its_state(
    text: str, seed: int, cut: int
) -> None:
    commands = _commands(text, seed)
    later = commands[cut : cut + 400]
    session, twin = Session(), Session()
    for command in commands[:cut]:
        session.step(command)
        twin.step(command)
    assert session.dirty_tables  # rounds in play, never frozen: the copies are what is kept
    back = session.rollback_point()
    for command in later:  # the session goes on, changing the tables it copied
        session.step(command)
    first, second = back(), back()
    assert first.state() == twin.state()  # the state the point was taken at
    produced = [first.step(command) for command in later]  # and it goes on as the twin does
    assert produced == [twin.step(command) for command in later]
    assert first.state() == twin.state() == session.state()
    assert second.state() == _state_after(commands[:cut])  # each call: its own copies


def _state_after(commands: list[Command]) -> FloorState:
    """The frozen state after ``commands``, from a session that never took a rollback point."""
    session = Session()
    for command in commands:
        session.step(command)
    return session.state()


def test_a_rollback_point_freezes_no_table_whatever_its_id() -> None:
    """The point freezes the meters and hits but no table (it copies the changed ones): asked
    by an empty collection of tables, not by an id no table has (`_flush("")` froze a table
    whose id is ``""``, and took it off the changed ones)."""
    session = Session()
    for table_id in ("", "t-1"):
        session.new_table(table_id)
        session.dirty_tables.add(table_id)
    before = session._base.tables
    back = session.rollback_point()
    assert session.dirty_tables == {"", "t-1"}
    assert session._base.tables is before
    assert back().dirty_tables == {"", "t-1"}
