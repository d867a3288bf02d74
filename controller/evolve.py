"""``evolve(state, event) -> state`` for the whole floor. Never raises, never decides.

Kept apart from `controller.floor` (the decider) so each reads in one sitting; `floor` re-exports
it. `evolve_many` applies a run of events at once; `evolve` is the run of one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from immutables import MapMutation

from controller.config.floor import logged_config
from controller.meter import evolve_meter
from controller.model.events import (
    ConfigActivated,
    ConfigChangeScheduled,
    ContributionDiverted,
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
    MeterTransferredIn,
    MeterTransferredOut,
    MysteryArmed,
    MysteryRevealed,
    ProgressiveHit,
)
from controller.model.state import (
    FloorState,
    HitState,
    MeterState,
    TableState,
    fast_replace,
)
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    WagerPlaced,
    WagersLocked,
)
from controller.mystery import evolve_mystery
from controller.rules.table_state import add_contribution, evolve_table


def evolve(state: FloorState, event: Event) -> FloorState:
    """The state after ``event``."""
    return evolve_many(state, (event,))


def evolve_many(state: FloorState, events: Iterable[Event]) -> FloorState:
    """The state after ``events``, in order: ``reduce(evolve, events, state)``, but each map is
    changed in place (`Map.mutate`) and one `FloorState` is built at the end, instead of a frozen
    copy of the floor per event (a locked round yields about ten events; a replay, millions)."""
    floor = _Floor(state)
    for event in events:
        floor.apply(event)
    return floor.finish()


class _Floor:
    """The floor while a run of events is applied. Never escapes `evolve_many`."""

    __slots__ = ("changes", "hits", "meters", "state", "tables")

    def __init__(self, state: FloorState) -> None:
        self.state = state
        self.tables: MapMutation[str, TableState] = state.tables.mutate()
        self.meters: MapMutation[str, MeterState] = state.meters.mutate()
        self.hits: MapMutation[str, HitState] = state.hits.mutate()
        self.changes: dict[str, object] = {}  # the configuration fields a run replaced

    def finish(self) -> FloorState:
        return fast_replace(
            self.state,
            tables=self.tables.finish(),
            meters=self.meters.finish(),
            hits=self.hits.finish(),
            **self.changes,
        )

    def apply(self, event: Event) -> None:
        match event:
            case (
                RoundOpened()
                | WagerPlaced()
                | WagersLocked()
                | DecisionMade()
                | RoundSettled()
                | RoundVoided()
            ):
                self.tables[event.table_id] = evolve_table(self.tables.get(event.table_id), event)
            case (
                MeterSeeded()
                | ContributionsReversed()
                | MeterCorrected()
                | ContributionDiverted()
                | MeterTransferredOut()
                | MeterTransferredIn()
            ):
                self._meter(event)
            case ContributionRecorded():
                self._meter(event)
                self._round_contribution(event)
            case ProgressiveHit():
                self._meter(event)
                self._pending_hit(event.hit_id, event.meter_id, event.amount_cents)
            case HitValidated() | HitPaid():
                self._hit_status(event)
            case MysteryArmed() | MysteryRevealed():
                meter = self.meters.get(event.meter_id) or MeterState(meter_id=event.meter_id)
                self.meters[event.meter_id] = evolve_mystery(meter, event)
            case ConfigActivated():
                self.changes.update(
                    config=logged_config(event.digest, event.text, event.source),
                    config_version=event.version,
                    config_event=event,
                    pending_config=None,
                )
            case ConfigChangeScheduled():
                self.changes["pending_config"] = event
            case FixedAwarded() if event.hit_id:
                # 649a.11(c)(8)(ii): verified by a floorperson before it is paid, like a hit.
                self._pending_hit(event.hit_id, event.meter_id, event.amount_cents)
            case FixedAwarded() | EnvyAwarded() | EventRejected():
                pass
            case _:
                assert_never(event)

    def _meter(self, event: MeterEvent) -> None:
        meter = self.meters.get(event.meter_id) or MeterState(meter_id=event.meter_id)
        self.meters[event.meter_id] = evolve_meter(meter, event)

    def _round_contribution(self, event: ContributionRecorded) -> None:
        table = self.tables.get(event.table_id)
        if table is not None:
            entry = (event.meter_id, event.primary_sub, event.reserve_sub)
            self.tables[event.table_id] = add_contribution(table, event.round_id, entry)

    def _pending_hit(self, hit_id: str, meter_id: str, amount_cents: int) -> None:
        self.hits[hit_id] = HitState(
            hit_id=hit_id, meter_id=meter_id, amount_cents=amount_cents, status="pending_validation"
        )

    def _hit_status(self, event: HitValidated | HitPaid) -> None:
        hit = self.hits.get(event.hit_id)
        if hit is not None:
            if isinstance(event, HitValidated):
                self.hits[event.hit_id] = fast_replace(
                    hit, status="validated", validated_by=event.by
                )
            else:
                self.hits[event.hit_id] = fast_replace(hit, status="paid")
