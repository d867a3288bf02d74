"""The table stage: checks each table event against the table's state and the rules, and says what
it owes the meters (claims) and the players (fixed and envy awards).

Every refusal raises `InvalidEvent` with a reason an operator can act on; the floor turns it into an
`EventRejected` record and changes nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.config.floor import FloorConfig, TableDef
from controller.meter import ContributionClaim, MeterClaim, ReversalClaim
from controller.model.errors import InvalidEvent
from controller.model.money import contribution_subunits
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
from controller.rules.round_checks import check_decision, check_settlement, check_wager
from controller.rules.settlement import SettlementStep, settle_round

TableStep = SettlementStep | MeterClaim


def decide_table(
    config: FloorConfig, table: TableState | None, event: TableEvent
) -> tuple[TableStep, ...]:
    """What accepting ``event`` implies, or InvalidEvent with the reason it is refused."""
    table_def = config.tables.get(event.table_id)
    if table_def is None:
        msg = f"unknown table {event.table_id!r}: it is not in the floor configuration"
        raise InvalidEvent(msg)
    state = table or TableState(table_id=event.table_id)
    _check_sequence(state, event)
    if isinstance(event, RoundOpened):
        _check_open(table_def, state, event)
        return ()
    current = _current_round(state, event)
    match event:
        case WagerPlaced():
            check_wager(config, table_def, current, event)
            return ()
        case WagersLocked():
            _require_phase(current, "open", "wagers_locked")
            return _contributions(config, table_def, current, event)
        case DecisionMade():
            check_decision(current, event)
            return ()
        case RoundSettled():
            check_settlement(config, table_def, current, event)
            return settle_round(config, table_def, current, event)
        case RoundVoided():
            return _void(current, event)
    msg = f"{event.TYPE} is not handled"  # pragma: no cover - all table event types are matched
    raise InvalidEvent(msg)


def _check_sequence(state: TableState, event: TableEvent) -> None:
    round_state = state.round
    if round_state is not None and event.event_id in round_state.event_ids:
        msg = (
            f"duplicate event_id {event.event_id!r}: already accepted in round "
            f"{round_state.round_id!r}"
        )
        raise InvalidEvent(msg)
    if event.seq <= state.last_seq:
        msg = (
            f"seq {event.seq} is not after the table's last accepted seq {state.last_seq}: "
            "table events must be strictly increasing per table"
        )
        raise InvalidEvent(msg)


def _check_open(table_def: TableDef, state: TableState, event: RoundOpened) -> None:
    if event.game != table_def.game:
        msg = f"table {table_def.table_id!r} plays {table_def.game}, not {event.game}"
        raise InvalidEvent(msg)
    current = state.round
    if current is not None and current.phase in ("open", "locked"):
        msg = (
            f"round {current.round_id!r} is still {current.phase}: settle or void it before "
            f"opening round {event.round_id!r}"
        )
        raise InvalidEvent(msg)
    if current is not None and current.round_id == event.round_id:
        msg = f"round_id {event.round_id!r} was already used by the table's last round"
        raise InvalidEvent(msg)


def _current_round(state: TableState, event: TableEvent) -> RoundState:
    current = state.round
    if current is None or current.round_id != event.round_id:
        known = "no round" if current is None else f"round {current.round_id!r}"
        msg = f"{event.TYPE} for round {event.round_id!r}, but the table's current round is {known}"
        raise InvalidEvent(msg)
    return current


def _require_phase(current: RoundState, phase: str, what: str) -> None:
    if current.phase != phase:
        msg = f"{what} needs round {current.round_id!r} to be {phase}, but it is {current.phase}"
        raise InvalidEvent(msg)


def _contributions(
    config: FloorConfig, table_def: TableDef, current: RoundState, event: WagersLocked
) -> tuple[MeterClaim, ...]:
    """Contributions are recognised when wagers lock, at each meter's primary and reserve rates
    (649a.12(e)(3), (h)(3), (i)(4), (j)(3)); a later fold does not take them back."""
    claims: list[MeterClaim] = []
    for wager in current.wagers:
        meter_id = table_def.links.get(wager.wager)
        if meter_id is None:
            continue
        definition = config.meters[meter_id].progressive
        claims.append(
            ContributionClaim(
                meter_id=meter_id,
                table_id=event.table_id,
                round_id=event.round_id,
                seat=wager.seat,
                wager=wager.wager,
                on=wager.on,
                wager_cents=wager.amount_cents,
                primary_sub=contribution_subunits(wager.amount_cents, definition.primary_ppm),
                reserve_sub=contribution_subunits(wager.amount_cents, definition.reserve_ppm),
                occurred_at=event.occurred_at,
            )
        )
    return tuple(claims)


def _void(current: RoundState, event: RoundVoided) -> tuple[MeterClaim, ...]:
    """A void before settlement reverses exactly that round's contributions; after, it is
    refused."""
    if current.phase not in ("open", "locked"):
        msg = (
            f"round {current.round_id!r} is already {current.phase}: a void after settlement is "
            "refused; use an authorised meter correction"
        )
        raise InvalidEvent(msg)
    return tuple(
        ReversalClaim(
            meter_id=meter_id,
            table_id=event.table_id,
            round_id=event.round_id,
            primary_sub=primary,
            reserve_sub=reserve,
            count=count,
            reason=event.reason,
            occurred_at=event.occurred_at,
        )
        for meter_id, primary, reserve, count in per_meter(current.contributions)
    )


def per_meter(
    contributions: Sequence[tuple[str, int, int]],
) -> list[tuple[str, int, int, int]]:
    totals: dict[str, tuple[int, int, int]] = {}
    for meter_id, primary, reserve in contributions:
        p, r, n = totals.get(meter_id, (0, 0, 0))
        totals[meter_id] = (p + primary, r + reserve, n + 1)
    return [(m, p, r, n) for m, (p, r, n) in totals.items()]
