"""A table's next state in the Kafka round lane, built without `fast_replace`'s keyword pass.

The round processor (`streams.scaleout.rounds`) advances a table by `evolve_table` and then, for a
lock, `add_contribution` once per linked wager: each a `fast_replace` of the frozen round and of
the table (a keyword dict per call, each field looked up in it, each slot set through
``object.__setattr__``), so a lock with six linked wagers rebuilt the round and the table seven
times. `next_table` builds the same two objects once, positionally (`controller.fast.build`:
each slot through its own descriptor): field for field what those calls give
(``tests/controller/fast/test_lane.py``, and the round lane's differential test against main's
processors). Event kinds it does not know, and contributions for a round that is not the table's
current one after the event (never, as the processor makes them), take the reference calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from controller.fast.build import builder
from controller.model.state import RoundState, TableState
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)
from controller.rules.table_state import add_contribution, evolve_table

#: A contribution a round remembers: (meter_id, primary_sub, reserve_sub).
Entry = tuple[str, int, int]

_ROUND_FIELDS: Final = (
    "round_id",
    "game",
    "phase",
    "wagers",
    "decisions",
    "contributions",
    "event_ids",
)
_round: Final = builder(RoundState, _ROUND_FIELDS)
_table: Final = builder(TableState, ("table_id", "last_seq", "round"))
_PHASES: Final[dict[type, str]] = {
    WagersLocked: "locked",
    RoundSettled: "settled",
    RoundVoided: "voided",
}


def next_table(
    table: TableState | None, event: TableEvent, contributed: Sequence[tuple[str, Entry]] = ()
) -> TableState:
    """``evolve_table(table, event)``, then ``add_contribution(..., round_id, entry)`` for each
    ``(round_id, entry)`` of ``contributed`` in order."""
    kind = type(event)
    step = _STEPS.get(kind)
    current = table.round if table is not None else None
    if step is None:
        return _reference(table, event, contributed)
    if kind is RoundOpened:
        new = step(None, event)
    elif current is None:
        new = None
    else:
        new = step(current, event)
    if contributed:
        if new is None or any(round_id != new.round_id for round_id, _ in contributed):
            return _reference(table, event, contributed)
        new = _round(
            new.round_id,
            new.game,
            new.phase,
            new.wagers,
            new.decisions,
            (*new.contributions, *(entry for _, entry in contributed)),
            new.event_ids,
        )
    table_id = table.table_id if table is not None else event.table_id
    return _table(table_id, event.seq, new)


def _reference(
    table: TableState | None, event: TableEvent, contributed: Sequence[tuple[str, Entry]]
) -> TableState:
    """The definition: the reference calls, one after the other."""
    out = evolve_table(table, event)
    for round_id, entry in contributed:
        out = add_contribution(out, round_id, entry)
    return out


def _opened(_: RoundState | None, e: RoundOpened) -> RoundState:
    return _round(e.round_id, e.game, "open", (), (), (), frozenset((e.event_id,)))


def _wager(c: RoundState, e: WagerPlaced) -> RoundState:
    seen = c.event_ids | {e.event_id}
    return _round(c.round_id, c.game, c.phase, (*c.wagers, e), c.decisions, c.contributions, seen)


def _decision(c: RoundState, e: DecisionMade) -> RoundState:
    seen = c.event_ids | {e.event_id}
    return _round(c.round_id, c.game, c.phase, c.wagers, (*c.decisions, e), c.contributions, seen)


def _phase(c: RoundState, e: TableEvent) -> RoundState:
    seen = c.event_ids | {e.event_id}
    phase = _PHASES[type(e)]
    return _round(c.round_id, c.game, phase, c.wagers, c.decisions, c.contributions, seen)


_STEPS: Final[dict[type, Callable[..., RoundState]]] = {
    RoundOpened: _opened,
    WagerPlaced: _wager,
    DecisionMade: _decision,
    WagersLocked: _phase,
    RoundSettled: _phase,
    RoundVoided: _phase,
}
