"""The hot events applied without deciding (a replay: ``evolve``), on the session's records.

Each applier moves the records exactly as `controller.evolve` moves the frozen state (never
checks, never refuses); an event type without an applier goes to the reference `evolve`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.fast.payouts import apply_hit, apply_seed, pending_hit
from controller.fast.records import Round, Table
from controller.fast.shapes import (
    ContributionLike,
    DecisionLike,
    FixedLike,
    OpenedLike,
    TableRecord,
    WagerLike,
)
from controller.model.events import (
    ContributionRecorded,
    EnvyAwarded,
    Event,
    EventRejected,
    FixedAwarded,
    MeterSeeded,
    ProgressiveHit,
)
from controller.model.state import RoundPhase
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    WagerPlaced,
    WagersLocked,
)

if TYPE_CHECKING:
    from controller.fast.session import Session

Applier = Callable[["Session", Any], bool]


def _table(s: Session, e: TableRecord) -> Table:
    """`evolve_table`'s start: the table (new if unseen) at the event's ``seq``."""
    table_id = e.table_id
    table = s.tables.get(table_id) or s.table(table_id) or s.new_table(table_id)
    table.last_seq = e.seq
    s.dirty_tables.add(table_id)
    return table


def apply_opened(s: Session, e: OpenedLike) -> bool:
    """`evolve_table` of a `RoundOpened`: a new round."""
    _table(s, e).round = Round.opened(e)
    return True


def apply_wager(s: Session, e: WagerLike) -> bool:
    """`evolve_table` of a `WagerPlaced`: the current round (whichever it is) keeps it. Written
    out (not through `_table`): half the records of a replay are wagers."""
    table_id = e.table_id
    table = s.tables.get(table_id) or s.table(table_id) or s.new_table(table_id)
    table.last_seq = e.seq
    s.dirty_tables.add(table_id)
    current = table.round
    if current is not None:  # its id joins ``event_ids`` when they are read (`Round.indexed`)
        current.wagers.append(e)
    return True


def apply_decision(s: Session, e: DecisionLike) -> bool:
    """`evolve_table` of a `DecisionMade`."""
    current = _table(s, e).round
    if current is not None:  # its id joins ``event_ids`` when they are read (`Round.indexed`)
        current.decisions.append(e)
    return True


def _phase(s: Session, e: TableRecord, phase: RoundPhase) -> None:
    current = _table(s, e).round
    if current is not None:
        current.event_ids.add(e.event_id)
        current.phase = phase


def apply_locked(s: Session, e: TableRecord) -> bool:
    """`evolve_table` of a `WagersLocked`."""
    _phase(s, e, "locked")
    return True


def apply_settled(s: Session, e: TableRecord) -> bool:
    """`evolve_table` of a `RoundSettled` (the cards stay in the log, not in the state)."""
    _phase(s, e, "settled")
    return True


def apply_voided(s: Session, e: TableRecord) -> bool:
    """`evolve_table` of a `RoundVoided` (its reversals are events of their own)."""
    _phase(s, e, "voided")
    return True


def apply_fixed(s: Session, e: FixedLike) -> bool:
    """`evolve` of a `FixedAwarded`: an award a floorperson verifies waits as a hit."""
    if e.hit_id:  # 649a.11(c)(8)(ii): verified by a floorperson before it is paid
        pending_hit(s, e.hit_id, e.meter_id, int(e.amount_cents))
    return True


def apply_contribution(s: Session, e: ContributionLike) -> bool:
    """`evolve` of a `ContributionRecorded`: the meter, and the round remembers it."""
    meter_id, table_id = e.meter_id, e.table_id
    (s.meters.get(meter_id) or s.meter_or_new(meter_id)).contribute(e)
    s.dirty_meters.add(meter_id)
    table = s.tables.get(table_id) or s.table(table_id)
    if table is not None:
        current = table.round
        if current is not None and current.round_id == e.round_id:
            current.contributions.append((meter_id, e.primary_sub, e.reserve_sub))
            s.dirty_tables.add(table_id)
    return True


def _apply_seed(s: Session, e: MeterSeeded) -> bool:
    apply_seed(s, e)
    return True


def _apply_hit(s: Session, e: ProgressiveHit) -> bool:
    apply_hit(s, e)
    return True


def _nothing(s: Session, e: Event) -> bool:
    return True


#: The hot appliers by event type; any other event goes to the reference's `evolve`.
APPLIERS: dict[type, Applier] = {
    RoundOpened: apply_opened,
    WagerPlaced: apply_wager,
    WagersLocked: apply_locked,
    DecisionMade: apply_decision,
    RoundSettled: apply_settled,
    RoundVoided: apply_voided,
    ContributionRecorded: apply_contribution,
    MeterSeeded: _apply_seed,
    ProgressiveHit: _apply_hit,
    FixedAwarded: apply_fixed,
    EnvyAwarded: _nothing,
    EventRejected: _nothing,
}
