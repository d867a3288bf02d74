"""``evolve(state, event) -> state`` for the whole floor. Never raises, never decides.

Kept apart from `controller.floor` (the decider) so each reads in one sitting; `floor` re-exports
it.
"""

from __future__ import annotations

from typing import assert_never

from controller.config import load_floor_config
from controller.events import (
    ConfigActivated,
    ConfigChangeScheduled,
    ContributionRecorded,
    ContributionsReversed,
    EnvyAwarded,
    Event,
    EventRejected,
    FixedAwarded,
    HitPaid,
    HitValidated,
    MeterCorrected,
    MeterEvent,
    MeterSeeded,
    ProgressiveHit,
)
from controller.meter import evolve_meter
from controller.state import FloorState, HitState, HitStatus, MeterState, fast_replace
from controller.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)
from controller.table_state import add_contribution, evolve_table


def evolve(state: FloorState, event: Event) -> FloorState:
    """The state after ``event``."""
    match event:
        case (
            RoundOpened()
            | WagerPlaced()
            | WagersLocked()
            | DecisionMade()
            | RoundSettled()
            | RoundVoided()
        ):
            return _table(state, event)
        case MeterSeeded() | ContributionsReversed() | MeterCorrected():
            return _meter(state, event)
        case ContributionRecorded():
            return _round_contribution(_meter(state, event), event)
        case ProgressiveHit():
            hit = HitState(
                hit_id=event.hit_id,
                meter_id=event.meter_id,
                amount_cents=event.amount_cents,
                status="pending_validation",
            )
            return fast_replace(_meter(state, event), hits=state.hits.set(event.hit_id, hit))
        case HitValidated() | HitPaid():
            return _hit_status(state, event)
        case ConfigActivated():
            config = load_floor_config(event.text, event.source)
            return fast_replace(
                state,
                config=config,
                config_version=event.version,
                config_event=event,
                pending_config=None,
            )
        case ConfigChangeScheduled():
            return fast_replace(state, pending_config=event)
        case FixedAwarded() if event.hit_id:
            # 649a.11(c)(8)(ii): verified by a floorperson before it is paid, like a hit.
            hit = HitState(
                hit_id=event.hit_id,
                meter_id=event.meter_id,
                amount_cents=event.amount_cents,
                status="pending_validation",
            )
            return fast_replace(state, hits=state.hits.set(event.hit_id, hit))
        case FixedAwarded() | EnvyAwarded() | EventRejected():
            return state
        case _:
            assert_never(event)


def _meter(state: FloorState, event: MeterEvent) -> FloorState:
    meter = state.meters.get(event.meter_id) or MeterState(meter_id=event.meter_id)
    return fast_replace(state, meters=state.meters.set(event.meter_id, evolve_meter(meter, event)))


def _round_contribution(state: FloorState, event: ContributionRecorded) -> FloorState:
    table = state.tables.get(event.table_id)
    if table is None:
        return state
    updated = add_contribution(
        table, event.round_id, (event.meter_id, event.primary_sub, event.reserve_sub)
    )
    return fast_replace(state, tables=state.tables.set(event.table_id, updated))


def _hit_status(state: FloorState, event: HitValidated | HitPaid) -> FloorState:
    hit = state.hits.get(event.hit_id)
    if hit is None:
        return state
    status: HitStatus = "validated" if isinstance(event, HitValidated) else "paid"
    return fast_replace(state, hits=state.hits.set(event.hit_id, fast_replace(hit, status=status)))


def _table(state: FloorState, event: TableEvent) -> FloorState:
    updated = evolve_table(state.tables.get(event.table_id), event)
    return fast_replace(state, tables=state.tables.set(event.table_id, updated))
