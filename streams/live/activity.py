"""What signage and surveillance show of the event stream: meter rows and activity rows.

Pure functions over events and state (no I/O, no clock); `streams.live.feed` calls them with each
durable batch and fans the rows out. Every row is a JSON-ready dict; money is a decimal string
("1000.14"), meter amounts rounded down to the cent (a sign never shows more than the meter holds).

The alerts surveillance also gets are `streams.live.alerts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import assert_never

from controller.config.floor import FloorConfig
from controller.model.events import (
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
    ProgressiveHit,
)
from controller.model.money import format_cents, format_subunits
from controller.model.state import MeterState
from streams.live.alerts import Row
from streams.live.signs import sign_display

#: meter id -> (amount_sub, meter seq) as the batches so far left it
Track = dict[str, tuple[int, int]]


def advance(track: Track, event: MeterEvent) -> tuple[int | None, int | None]:
    """The meter's amount before and after ``event`` (None where unknown), updating ``track``.

    An event at or below the tracked seq is already reflected (a batch seen twice): it changes
    nothing and its before/after are unknown."""
    known = track.get(event.meter_id)
    if known is not None and event.meter_seq <= known[1]:
        return None, None
    before = known[0] if known is not None else None
    match event:
        case MeterSeeded():
            after: int | None = event.amount_sub
        case ProgressiveHit():
            before, after = event.meter_before_sub, event.meter_after_sub
        case ContributionRecorded():
            kept = event.primary_sub - event.overflow_sub - event.diverted_sub
            after = None if before is None else before + kept
        case ContributionDiverted():
            kept = event.amount_sub - event.overflow_sub - event.diverted_sub
            after = None if before is None else before + kept
        case ContributionsReversed():
            after = None if before is None else before - event.primary_sub + event.overflow_sub
        case MeterCorrected():
            after = None if before is None else before + event.amount_delta_sub
        case MeterTransferredOut():
            after = None if before is None else before - event.amount_sub
        case MeterTransferredIn():
            after = None if before is None else before + event.amount_sub
        case _:
            assert_never(event)
    if after is None:
        track.pop(event.meter_id, None)
    else:
        track[event.meter_id] = (after, event.meter_seq)
    return before, after


def activity_rows(events: Iterable[Event], track: Track, received: Sequence[str] = ()) -> list[Row]:
    """Surveillance rows for a batch: hits, envy, fixed awards, hit status changes and
    rejections, each with the meter before and after; ``track`` is advanced in place. Each row
    carries the controller's receive time of its event (``received``, in step with ``events``;
    the page shows it, with the device's ``occurred_at`` beside it)."""
    rows: list[Row] = []
    for index, event in enumerate(events):
        count = len(rows)
        _add_rows(rows, event, track)
        stamp = received[index] if index < len(received) else ""
        for row in rows[count:]:
            row["received_at"] = stamp
    return rows


def _add_rows(rows: list[Row], event: Event, track: Track) -> None:
    """The rows one event adds to ``rows``."""
    if isinstance(event, MeterEvent):
        advance(track, event)
        if isinstance(event, ProgressiveHit):
            rows.append(hit_row(event))
        return
    match event:
        case EnvyAwarded() | FixedAwarded():
            known = track.get(event.meter_id)
            held = "" if known is None else format_subunits(known[0])
            rows.append({**award_row(event), "meter_before": held, "meter_after": held})
        case HitValidated() | HitPaid():
            status = "validated" if isinstance(event, HitValidated) else "paid"
            rows.append({"kind": "hit_status", "hit_id": event.hit_id, "status": status})
            rows[-1] |= {"by": event.by, "occurred_at": event.occurred_at}
        case EventRejected():
            rows.append({"kind": "rejected", "event_id": event.event_id, "reason": event.reason})
            rows[-1] |= {"table_id": event.table_id, "event_type": event.event_type}
            rows[-1] |= {"occurred_at": event.occurred_at}
        case _:
            return


def hit_row(hit: ProgressiveHit) -> Row:
    """A progressive hit as surveillance lists it; a dealer-hand jackpot paid to several
    players is a ``split``. Every hit waits for validation first (649a.11(c)(5)(iii))."""
    return {
        "kind": "hit",
        "hit_id": hit.hit_id,
        "meter_id": hit.meter_id,
        "table_id": hit.table_id,
        "round_id": hit.round_id,
        "wager": hit.wager,
        "on": hit.on,
        "hand": hit.hand,
        "cards": list(hit.cards),
        "share": hit.share,
        "amount": format_cents(hit.amount_cents),
        "winners": [{"seat": w.seat, "amount": format_cents(w.amount_cents)} for w in hit.winners],
        "meter_before": format_subunits(hit.meter_before_sub),
        "meter_after": format_subunits(hit.meter_after_sub),
        "reset": hit.reset,
        "split": hit.on == "dealer" and len(hit.winners) > 1,
        "status": "pending_validation",
        "occurred_at": hit.occurred_at,
    }


def award_row(event: EnvyAwarded | FixedAwarded) -> Row:
    """An Envy Bonus or a "for 1" award: fixed sums, so the meter does not move."""
    row: Row = {
        "kind": "envy" if isinstance(event, EnvyAwarded) else "fixed",
        "meter_id": event.meter_id,
        "table_id": event.table_id,
        "round_id": event.round_id,
        "seat": event.seat,
        "wager": event.wager,
        "hand": event.hand,
        "cards": list(event.cards),
        "amount": format_cents(event.amount_cents),
        "occurred_at": event.occurred_at,
    }
    if isinstance(event, EnvyAwarded):
        row["holder_seat"] = event.holder_seat
    else:
        row["on"] = event.on
    return row


def hit_notice(hit: ProgressiveHit, received_at: str = "") -> Row:
    """What a sign celebrates: the table, the amount won and the value the meter restarts at;
    and, for the panel's last-hit line, its id, share, status and when the controller got it."""
    return {
        "meter_id": hit.meter_id,
        "table_id": hit.table_id,
        "amount": format_cents(hit.amount_cents),
        "reset_amount": format_subunits(hit.meter_after_sub),
        "hand": hit.hand,
        "seq": hit.meter_seq,
        "hit_id": hit.hit_id,
        "share": hit.share,
        "status": "pending_validation",
        "received_at": received_at,
        "occurred_at": hit.occurred_at,
    }


def meter_row(meter: MeterState, labels: Mapping[str, tuple[str, str]], updated_at: str) -> Row:
    """A meter as a sign shows it: its label, subtitle and amount rounded down to the cent."""
    label, subtitle = labels.get(meter.meter_id, (meter.meter_id.replace("-", " ").upper(), ""))
    return {
        "meter_id": meter.meter_id,
        "label": label,
        "subtitle": subtitle,
        "amount": format_subunits(meter.amount_sub),
        "seq": meter.seq,
        "hits": meter.hits,
        "updated_at": updated_at,
    }


def meter_labels(config: FloorConfig | None) -> dict[str, tuple[str, str]]:
    """Per meter: the sign's title and subtitle (`streams.live.signs.meter_label`)."""
    return dict(sign_display(config).labels)
