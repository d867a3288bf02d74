"""Given / When / Then for rule tests, so one rule reads as one statement::

    given(PA).events(opened("tcp-1", "r1"), wager(1, "progressive", "1.00"), locked()).when(
        settled(dealer="2c 7d 9h", seats={1: "As Ks Qs"})
    ).then(pays(hit(1, "1000.14")), meter_is("tcp-progressive", "1000.00"))

Builders leave the bookkeeping blank (table, round, ``seq``, ``event_id``, ``occurred_at``,
``command_id``); the scenario fills each blank from context: the table and round of the last
`opened`, the table's next ``seq``, a fresh id and a later timestamp. `at` sets any of them
explicitly (a second table, a repeated ``seq``, a duplicate ``event_id``) and the scenario keeps
what is set. ``given(...).events(...)`` refuses a rejected event, so a test's premise cannot fail
silently; ``when`` records whatever happens, for ``then`` to judge.

The builders live in `tests.controller.scenario_builders` and the checks in
`tests.controller.scenario_checks`; both are re-exported here so a rule test imports one module.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from controller.fast import Session
from controller.floor import decide, evolve
from controller.model.commands import OperatorCommand, PayHit, ValidateHit
from controller.model.events import (
    Event,
    EventRejected,
)
from controller.model.state import FloorState, MeterState
from controller.model.table_events import (
    RoundOpened,
    TableEvent,
)
from tests.controller.scenario_builders import (
    BLANK,
    BLANK_SEQ,
    PA,
    Command,
    activate,
    at,
    correct,
    decision,
    fold,
    locked,
    locked_round,
    opened,
    pay,
    play,
    resolve_hit,
    settled,
    sub,
    validate,
    voided,
    wager,
    with_policy,
)
from tests.controller.scenario_checks import (
    Outcome,
    accepted,
    conserved,
    envy,
    fixed,
    hit,
    hit_status,
    meter_is,
    meter_sub_is,
    pays,
    pays_nothing,
    rejected,
)

__all__ = [
    "BLANK",
    "BLANK_SEQ",
    "PA",
    "Command",
    "Outcome",
    "Scenario",
    "accepted",
    "activate",
    "at",
    "conserved",
    "correct",
    "decision",
    "envy",
    "fixed",
    "fold",
    "given",
    "hit",
    "hit_status",
    "locked",
    "locked_round",
    "meter_is",
    "meter_sub_is",
    "opened",
    "pay",
    "pays",
    "pays_nothing",
    "play",
    "rejected",
    "resolve_hit",
    "settled",
    "sub",
    "validate",
    "voided",
    "wager",
    "with_policy",
]


@dataclass(slots=True)
class Scenario:
    """A floor built up event by event; the context fills the builders' blanks."""

    state: FloorState = field(default_factory=FloorState)
    log: list[Event] = field(default_factory=list)
    table: str = BLANK
    rounds: dict[str, str] = field(default_factory=dict)
    seqs: dict[str, int] = field(default_factory=dict)
    counter: Iterator[int] = field(default_factory=itertools.count)
    fast: Session = field(default_factory=Session)
    """The fast path, stepped alongside: every scenario is also a differential test."""
    fast_from: FloorState | None = None
    """The state the fast path last caught up with; a test that sets ``state`` itself (a mystery
    trigger the edge unsealed) starts the fast path again from there."""

    def events(self, *commands: Command) -> Scenario:
        """Apply the premise; every command must be accepted."""
        for command in commands:
            for event in self._apply(command):
                if isinstance(event, EventRejected):
                    msg = f"premise {type(command).__name__} was rejected: {event.reason}"
                    raise AssertionError(msg)
        return self

    def when(self, *commands: Command) -> Outcome:
        """Apply the commands under test, whatever they produce."""
        before = self.state
        emitted: list[Event] = []
        for command in commands:
            emitted.extend(self._apply(command))
        return Outcome(before=before, state=self.state, emitted=tuple(emitted))

    def meter(self, meter_id: str) -> MeterState:
        """A meter as it stands now."""
        return self.state.meters[meter_id]

    def fill(self, command: Command) -> Command:
        """The command with its blanks filled from context (also advances the context)."""
        stamp = next(self.counter)
        when = f"2026-01-01T{stamp // 3600 % 24:02d}:{stamp // 60 % 60:02d}:{stamp % 60:02d}.000Z"
        if isinstance(command, ValidateHit | PayHit):
            command = replace(command, hit_id=resolve_hit(self.state, command.hit_id))
        if isinstance(command, OperatorCommand):
            return replace(
                command,
                command_id=command.command_id or f"cmd-{stamp}",
                occurred_at=command.occurred_at or when,
            )
        return self._fill_table_event(command, stamp, when)

    def _fill_table_event(self, event: TableEvent, stamp: int, when: str) -> TableEvent:
        table = event.table_id or self.table
        if isinstance(event, RoundOpened):
            self.table = table
            self.rounds[table] = event.round_id
        round_id = event.round_id or self.rounds.get(table, BLANK)
        seq = event.seq if event.seq != BLANK_SEQ else self.seqs.get(table, 0) + 1
        self.seqs[table] = max(seq, self.seqs.get(table, 0))
        return replace(
            event,
            table_id=table,
            round_id=round_id,
            seq=seq,
            event_id=event.event_id or f"{table}/{round_id}/e{stamp}",
            occurred_at=event.occurred_at or when,
        )

    def _apply(self, command: Command) -> tuple[Event, ...]:
        filled = self.fill(command)
        if self.fast_from is not self.state:
            self.fast = Session(self.state)
        events = decide(self.state, filled)
        for event in events:
            self.state = evolve(self.state, event)
        self.log.extend(events)
        assert self.fast.step(filled) == events, "the fast path decided otherwise"
        assert self.fast.state() == self.state, "the fast path's state differs"
        self.fast_from = self.state
        return events


def given(config_text: str = PA, source: str = "floor.toml") -> Scenario:
    """A floor with ``config_text`` in force and its meters seeded."""
    return Scenario().events(activate(config_text, source))
