"""How a table's state moves with its events: shared by the floor fold and the Kafka round
processor, so both engines advance a table exactly the same way. Never raises."""

from __future__ import annotations

from controller.model.state import RoundState, TableState, fast_replace
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)


def evolve_table(table: TableState | None, event: TableEvent) -> TableState:
    """The table after an accepted table event."""
    current = table or TableState(table_id=event.table_id)
    return fast_replace(current, last_seq=event.seq, round=_next_round(current.round, event))


def add_contribution(table: TableState, round_id: str, entry: tuple[str, int, int]) -> TableState:
    """Remember a contribution (meter, primary, reserve) of the current round, so a void can
    reverse exactly what the round contributed (issue: voids before settlement)."""
    current = table.round
    if current is None or current.round_id != round_id:
        return table
    updated = fast_replace(current, contributions=(*current.contributions, entry))
    return fast_replace(table, round=updated)


def _next_round(current: RoundState | None, event: TableEvent) -> RoundState | None:
    if isinstance(event, RoundOpened):
        return RoundState(
            round_id=event.round_id,
            game=event.game,
            phase="open",
            event_ids=frozenset({event.event_id}),
        )
    if current is None:
        return None
    seen = current.event_ids | {event.event_id}
    match event:
        case WagerPlaced():
            return fast_replace(current, wagers=(*current.wagers, event), event_ids=seen)
        case WagersLocked():
            return fast_replace(current, phase="locked", event_ids=seen)
        case DecisionMade():
            return fast_replace(current, decisions=(*current.decisions, event), event_ids=seen)
        case RoundSettled():
            return fast_replace(current, phase="settled", event_ids=seen)
        case RoundVoided():
            return fast_replace(current, phase="voided", event_ids=seen)
    return current
