"""The Kafka lanes' sure answers and next states, built without the reference's keyword passes.

`next_table` is `evolve_table` then `add_contribution` per linked wager (each a `fast_replace`
of the round and the table: a lock with six linked wagers rebuilt both seven times), the two
objects built once, positionally: field for field the same (``tests/controller/fast/
test_lane.py``; the round lane's differential tests against main's processors). Event kinds it
does not know, and contributions for a round not the table's current one, take the reference.

`wager_accepted` (a wager on the own hand), `decision_accepted` (`check_decision`'s checks, as
`controller.fast.hot` runs them; the amounts by hot's own `_amount_ok`) and `lock_claims` (its
`ContributionClaim`s) are `decide_table`'s answers when it surely accepts; False or None asks the
reference, which then refuses in its own words. The meter lane's twins are
`controller.fast.meter_lane`.

The records are built by `builder`'s functions unless the worker `install`s faster makers of the
same objects (the extension's, ~0.7 µs less a meter: `controller` imports nothing of `streams`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, Protocol

from controller.config.defs import TableDef
from controller.config.floor import FloorConfig
from controller.fast import meter_lane
from controller.fast.build import CLAIM_FIELDS, builder
from controller.fast.hot import _amount_ok  # `_check_decision_amount`, as the session checks it
from controller.meter import ContributionClaim
from controller.model.games import GAMES
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
    "round_id", "game", "phase", "wagers", "decisions", "contributions", "event_ids",
)  # fmt: skip
_TABLE_FIELDS: Final = ("table_id", "last_seq", "round")
_round = builder(RoundState, _ROUND_FIELDS)  # these three: module globals `install` rebinds
_table = builder(TableState, _TABLE_FIELDS)


class Linked(Protocol):
    """What a lock reads of a wager: a `WagerPlaced`, or the open round's
    `controller.fast.records.SettledWager` (its fields read once)."""

    @property
    def seat(self) -> int: ...
    @property
    def wager(self) -> str: ...
    @property
    def on(self) -> str: ...
    @property
    def amount_cents(self) -> int: ...


_PHASES: Final[dict[type, str]] = {WagersLocked: "locked", RoundSettled: "settled",
                                   RoundVoided: "voided"}  # fmt: skip


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


_claim = builder(ContributionClaim, CLAIM_FIELDS)


def install(make: Callable[[type, tuple[str, ...]], Callable[..., Any]]) -> None:
    """Build the lanes' records with ``make(cls, given)``: a function equal to ``builder(cls,
    given)``, object for object (the caller's proof: ``tests/streams/scaleout/
    test_lane_builders.py`` for the worker's, `streams.scaleout.records.fast_builder`); the
    meter lane's too (`controller.fast.meter_lane.install`)."""
    global _round, _table, _claim  # noqa: PLW0603 - read per call, rebound once
    _round, _table = make(RoundState, _ROUND_FIELDS), make(TableState, _TABLE_FIELDS)
    _claim = make(ContributionClaim, CLAIM_FIELDS)
    meter_lane.install(make)


def lock_claims(
    config: FloorConfig, table: TableState | None, event: WagersLocked
) -> tuple[ContributionClaim, ...] | None:
    """``decide_table(config, table, event)`` for a lock it accepts (`_check_sequence`,
    `_current_round`, the open phase, then `_contributions`); None when it would refuse it."""
    table_def = config.tables.get(event.table_id)
    current = table.round if table is not None else None
    if (
        table_def is None
        or table is None
        or current is None
        or event.event_id in current.event_ids
        or event.seq <= table.last_seq
        or current.round_id != event.round_id
        or current.phase != "open"
    ):
        return None
    return claims_of(config, table_def, event, current.wagers)


def claims_of(
    config: FloorConfig, table_def: TableDef, event: WagersLocked, wagers: Iterable[Linked]
) -> tuple[ContributionClaim, ...] | None:
    """`_contributions`: the lock's claim per linked wager of ``wagers`` (the round's, in the
    order placed), once the lock is known to be accepted; None for a link to an unknown meter.
    Shared by `lock_claims` and the worker's open table (`streams.scaleout.open_rounds`)."""
    claims = []
    links, meters = table_def.links, config.meters
    table_id, round_id, at = event.table_id, event.round_id, event.occurred_at
    for wager in wagers:
        meter_id = links.get(wager.wager)
        if meter_id is None:
            continue
        meter = meters.get(meter_id)
        if meter is None:  # the reference's KeyError, worded by the reference
            return None
        rates, cents = meter.progressive, wager.amount_cents
        # `contribution_subunits` written out (cents x ppm, exact in sub-units: 649a.12(e)(3)),
        # as `controller.fast.lock` writes it: two interpreted calls a claim less
        primary, reserve = cents * rates.primary_ppm, cents * rates.reserve_ppm
        head = (meter_id, table_id, round_id, wager.seat, wager.wager, wager.on, cents)
        claims.append(_claim(*head, primary, reserve, at))
    return tuple(claims)


def wager_accepted(config: FloorConfig, table: TableState | None, event: WagerPlaced) -> bool:
    """True when ``decide_table(config, table, event)`` accepts the wager (with no steps, as it
    does every wager it accepts): `_check_sequence`, `_current_round` and `check_wager` for a
    wager on the own hand. False says nothing: the reference then decides (and refuses)."""
    table_def = config.tables.get(event.table_id)
    current = table.round if table is not None else None
    if (
        table_def is None
        or table is None
        or current is None
        or event.on != "own"
        or event.event_id in current.event_ids
        or event.seq <= table.last_seq
        or current.round_id != event.round_id
        or current.phase != "open"
        or not 1 <= event.seat <= table_def.seats
    ):
        return False
    rules = GAMES.get(current.game)
    if rules is None:
        return False
    meter_id = table_def.links.get(event.wager)
    if meter_id is None:
        if event.wager not in rules.base_wagers:
            return False
    else:
        meter = config.meters.get(meter_id)
        if meter is None or event.amount_cents != meter.unit_cents:
            return False
    seat, wager = event.seat, event.wager
    for placed in current.wagers:  # a loop: ``any`` over a generator cost a wager ~0.4 us
        if placed.seat == seat and placed.wager == wager and placed.on == "own":
            return False
    return True


def decision_accepted(config: FloorConfig, table: TableState | None, event: DecisionMade) -> bool:
    """True when ``decide_table(config, table, event)`` accepts the decision (with no steps, as
    it does every one it accepts): `_check_sequence`, `_current_round` and `check_decision` with
    `_check_decision_amount` (649a.11(b), 682a.11(b), 671a.11(b)); False says nothing."""
    current = table.round if table is not None else None
    if (
        table is None
        or current is None
        or event.table_id not in config.tables
        or event.event_id in current.event_ids
        or event.seq <= table.last_seq
        or current.round_id != event.round_id
        or current.phase != "locked"
    ):
        return False
    rules, seat, action = GAMES.get(current.game), event.seat, event.action
    ante = next((w.amount_cents for w in current.wagers if w.seat == seat and w.wager == "ante"),
                None)  # fmt: skip
    if rules is None or ante is None:
        return False
    continuing, options = rules.continue_actions, rules.option_actions
    if action not in continuing and action not in options and action != "fold":
        return False
    earlier = [d.action for d in current.decisions if d.seat == seat]
    if earlier and (action in options or any(a == "fold" or a in continuing for a in earlier)):
        return False
    if action == "draw" and not 2 <= len(event.discards) <= 5:
        return False
    return _amount_ok(action, event.amount_cents, ante)
