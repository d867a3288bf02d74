"""Read views of state and events: the shapes that `jackpot replay`, the HTTP API and reports print.

Money leaves the core here as decimal strings with two decimals; meter amounts are rounded down to
the cent (a sign never shows more than the meter holds).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from controller.model.events import EnvyAwarded, Event, EventRejected, FixedAwarded, ProgressiveHit
from controller.model.money import format_cents, format_subunits
from controller.model.state import FloorState, MeterState

View = dict[str, object]


def meter_view(meter: MeterState) -> View:
    """One meter as signage and accounting read it. ``overflow`` is what was contributed above the
    ceiling and is carried to the next 100% hit's restart (never shown on the sign as the meter)."""
    return {
        "meter_id": meter.meter_id,
        "amount": format_subunits(meter.amount_sub),
        "reserve": format_subunits(meter.reserve_sub),
        "overflow": format_subunits(meter.overflow_sub),
        "contributed": format_subunits(meter.contributed_sub),
        "paid": format_subunits(meter.paid_sub),
        "hits": meter.hits,
    }


def meters_view(state: FloorState) -> list[View]:
    """Every meter, in the configuration's order (then any others by id)."""
    order = list(state.config.meters) if state.config else []
    order += sorted(m for m in state.meters if m not in order)
    return [meter_view(state.meters[m]) for m in order if m in state.meters]


def awards_view(events: Iterable[Event]) -> Iterator[View]:
    """Every award in log order; a split dealer-hand jackpot gives one row per player paid.

    ``seat`` is the player paid and ``on`` whose hand won it ("own", "dealer", "seat:N").
    """
    for event in events:
        match event:
            case ProgressiveHit():
                for share in event.winners:
                    yield _row(event, share.seat, event.on, "progressive", share.amount_cents)
            case FixedAwarded():
                yield _row(event, event.seat, event.on, "fixed", event.amount_cents)
            case EnvyAwarded():
                yield _row(
                    event, event.seat, f"seat:{event.holder_seat}", "envy", event.amount_cents
                )
            case _:
                continue


def _row(
    event: ProgressiveHit | FixedAwarded | EnvyAwarded, seat: int, on: str, kind: str, cents: int
) -> View:
    return {
        "table_id": event.table_id,
        "round_id": event.round_id,
        "seat": seat,
        "wager": event.wager,
        "on": on,
        "kind": kind,
        "hand": event.hand,
        "amount": format_cents(cents),
        "meter_id": event.meter_id,
    }


def rejected_view(events: Iterable[Event]) -> Iterator[View]:
    """Every refused input with its reason."""
    for event in events:
        if isinstance(event, EventRejected):
            yield {"event_id": event.event_id, "reason": event.reason}
