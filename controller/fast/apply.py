"""The hot events applied without deciding (a replay: ``evolve``), on the session's records.

Each applier moves the records exactly as `controller.evolve` moves the frozen state (never
checks, never refuses); an event type without an applier goes to the reference `evolve`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.fast.records import Round
from controller.model.events import (
    ContributionRecorded,
    EnvyAwarded,
    Event,
    EventRejected,
    FixedAwarded,
    MeterSeeded,
    ProgressiveHit,
)
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)

if TYPE_CHECKING:
    from controller.fast.session import Session

Applier = Callable[["Session", Any], bool]


def apply_table(s: Session, e: TableEvent) -> bool:
    """`evolve_table`: never checks, never refuses."""
    table = s.table(e.table_id) or s.new_table(e.table_id)
    table.last_seq = e.seq
    kind = type(e)
    if kind is RoundOpened:
        table.round = Round.opened(e)  # type: ignore[arg-type]  # kind is RoundOpened
    elif table.round is not None:
        current = table.round
        current.event_ids.add(e.event_id)
        if kind is WagerPlaced:
            current.add_wager(e)  # type: ignore[arg-type]  # kind is WagerPlaced
        elif kind is DecisionMade:
            current.add_decision(e)  # type: ignore[arg-type]  # kind is DecisionMade
        elif kind is WagersLocked:
            current.phase = "locked"
        elif kind is RoundSettled:
            current.phase = "settled"
        else:
            current.phase = "voided"
    s.dirty_tables.add(e.table_id)
    return True


def _apply_fixed(s: Session, e: FixedAwarded) -> bool:
    if e.hit_id:  # 649a.11(c)(8)(ii): verified by a floorperson before it is paid
        s.pending_hit(e.hit_id, e.meter_id, e.amount_cents)
    return True


def _apply_contribution(s: Session, e: ContributionRecorded) -> bool:
    s.apply_contribution(e)
    return True


def _apply_seed(s: Session, e: MeterSeeded) -> bool:
    s.apply_seed(e)
    return True


def _apply_hit(s: Session, e: ProgressiveHit) -> bool:
    s.apply_hit(e)
    return True


def _nothing(s: Session, e: Event) -> bool:
    return True


#: The hot appliers by event type; any other event goes to the reference's `evolve`.
APPLIERS: dict[type, Applier] = {
    RoundOpened: apply_table,
    WagerPlaced: apply_table,
    WagersLocked: apply_table,
    DecisionMade: apply_table,
    RoundSettled: apply_table,
    RoundVoided: apply_table,
    ContributionRecorded: _apply_contribution,
    MeterSeeded: _apply_seed,
    ProgressiveHit: _apply_hit,
    FixedAwarded: _apply_fixed,
    EnvyAwarded: _nothing,
    EventRejected: _nothing,
}
