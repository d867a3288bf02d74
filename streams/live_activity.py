"""What signage and surveillance show of the event stream: meter rows, activity rows and alerts.

Pure functions over events and state (no I/O, no clock); `streams.live_feed` calls them with each
durable batch and fans the rows out. Every row is a JSON-ready dict; money is a decimal string
("1000.14"), meter amounts rounded down to the cent (a sign never shows more than the meter holds).

Alerts (`classify_alerts`), each with its reason:

- ``repeated_card``: a settlement refused because a card appears twice (one deck is dealt);
- ``wager_after_lock``: a wager refused because the round's wagers were already locked;
- ``envy_storm``: more than ``envy_storm_over`` Envy Bonuses in one round of one table (every
  Envy Bonus of a round comes from its settlement, so they are all in one batch);
- ``meter_moved_without_round``: a meter correction (authorised, but no round explains it), or a
  meter whose amount changed with no meter event for it in the batch (`unexplained_moves`);
- ``table_silent``, ``table_heard``, ``tables_unknown``: loss of communication with a table and its
  recovery (raised by `streams.live_playability`, not by events).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Final, Literal, assert_never

from controller.config import FloorConfig
from controller.events import (
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
from controller.money import format_cents, format_subunits
from controller.state import MeterState

Row = dict[str, object]
#: meter id -> (amount_sub, meter seq) as the batches so far left it
Track = dict[str, tuple[int, int]]
AlertKind = Literal[
    "repeated_card",
    "wager_after_lock",
    "envy_storm",
    "meter_moved_without_round",
    "table_silent",  # streams.live_playability: loss of communication, and recovery
    "table_heard",
    "tables_unknown",
]
ENVY_STORM_OVER: Final = 6  # a 7-seat table: one qualifying hand pays at most six others


@dataclass(frozen=True, slots=True, kw_only=True)
class Alert:
    """Something surveillance must look at, and why."""

    kind: AlertKind
    reason: str
    table_id: str = ""
    round_id: str = ""
    meter_id: str = ""
    occurred_at: str = ""

    def row(self) -> Row:
        """The alert as an activity row."""
        return {**asdict(self), "kind": "alert", "alert": self.kind}


def rejection_kind(reason: str, raw: str = "") -> AlertKind | None:
    """The alert a rejection raises: from its reason (`controller.round_checks`,
    `controller.cards`), or for the schema's "different cards" refusal (which also covers a bad
    count) from the raw input, when one of its card lists holds a card twice."""
    if "appears twice" in reason or " repeats " in reason:
        return "repeated_card"
    if "different cards" in reason and _repeats_a_card(_parsed(raw)):
        return "repeated_card"
    if reason.startswith("wager after wagers_locked"):
        return "wager_after_lock"
    return None


def classify_alerts(
    events: Iterable[Event], *, envy_storm_over: int = ENVY_STORM_OVER
) -> list[Alert]:
    """The alerts a batch of events raises, in event order (envy storms after the rest)."""
    alerts: list[Alert] = []
    envy: Counter[tuple[str, str]] = Counter()
    for event in events:
        match event:
            case EventRejected():
                kind = rejection_kind(event.reason, event.raw)
                if kind is not None:
                    alerts.append(_rejection_alert(kind, event))
            case EnvyAwarded():
                envy[(event.table_id, event.round_id)] += 1
            case MeterCorrected():
                reason = f"correction by {event.by}: {event.reason}"
                alerts.append(_moved(event.meter_id, reason, event.occurred_at))
            case _:
                continue
    for (table_id, round_id), count in envy.items():
        if count > envy_storm_over:
            reason = f"{count} Envy Bonuses in one round (more than {envy_storm_over})"
            alerts.append(
                Alert(kind="envy_storm", reason=reason, table_id=table_id, round_id=round_id)
            )
    return alerts


def unexplained_moves(
    before: Mapping[str, int], after: Mapping[str, int], events: Iterable[Event]
) -> list[Alert]:
    """Meters whose amount changed although no meter event of the batch touched them (only
    meters known before count: a meter seen for the first time has nothing to compare)."""
    touched = {event.meter_id for event in events if isinstance(event, MeterEvent)}
    return [
        _moved(
            meter_id,
            f"meter changed from {format_subunits(was)} to {format_subunits(now)} "
            "with no contribution, hit or correction",
        )
        for meter_id, now in after.items()
        if meter_id not in touched and (was := before.get(meter_id, now)) != now
    ]


def _moved(meter_id: str, reason: str, occurred_at: str = "") -> Alert:
    return Alert(
        kind="meter_moved_without_round", reason=reason, meter_id=meter_id, occurred_at=occurred_at
    )


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
            after = None if before is None else before + event.primary_sub
        case ContributionsReversed():
            after = None if before is None else before - event.primary_sub
        case MeterCorrected():
            after = None if before is None else before + event.amount_delta_sub
        case _:
            assert_never(event)
    if after is None:
        track.pop(event.meter_id, None)
    else:
        track[event.meter_id] = (after, event.meter_seq)
    return before, after


def activity_rows(events: Iterable[Event], track: Track) -> list[Row]:
    """Surveillance rows for a batch: hits, envy, fixed awards, hit status changes and
    rejections, each with the meter before and after; ``track`` is advanced in place."""
    rows: list[Row] = []
    for event in events:
        if isinstance(event, MeterEvent):
            advance(track, event)
            if isinstance(event, ProgressiveHit):
                rows.append(hit_row(event))
            continue
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
                rows.append(
                    {"kind": "rejected", "event_id": event.event_id, "reason": event.reason}
                )
                rows[-1] |= {"table_id": event.table_id, "event_type": event.event_type}
                rows[-1] |= {"occurred_at": event.occurred_at}
            case _:
                continue
    return rows


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


def hit_notice(hit: ProgressiveHit) -> Row:
    """What a sign celebrates: the table, the amount won and the value the meter restarts at."""
    return {
        "meter_id": hit.meter_id,
        "table_id": hit.table_id,
        "amount": format_cents(hit.amount_cents),
        "reset_amount": format_subunits(hit.meter_after_sub),
        "hand": hit.hand,
        "seq": hit.meter_seq,
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
    """Per meter: the sign's title (its id in capitals) and subtitle (the hand that wins the
    whole meter, and the wager unit)."""
    if config is None:
        return {}
    labels: dict[str, tuple[str, str]] = {}
    for meter_id, meter in config.meters.items():
        top = next((h for h, a in meter.progressive.pays if a.kind == "meter_percent"), "")
        unit = f"${format_cents(meter.unit_cents).removesuffix('.00')} WAGER"
        subtitle = f"{top.replace('_', ' ').upper()} · {unit}" if top else unit
        labels[meter_id] = (meter_id.replace("-", " ").upper(), subtitle)
    return labels


def _rejection_alert(kind: AlertKind, event: EventRejected) -> Alert:
    parsed = _parsed(event.raw)
    round_id = parsed.get("round_id", "") if isinstance(parsed, dict) else ""
    return Alert(
        kind=kind,
        reason=event.reason,
        table_id=event.table_id,
        round_id=str(round_id)[:64],
        occurred_at=event.occurred_at,
    )


def _parsed(raw: str) -> object:
    """The raw input of a rejection as JSON, or None."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _repeats_a_card(parsed: object) -> bool:
    """Whether the input holds a list of card strings with a card twice."""
    pending: list[object] = [parsed]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            pending.extend(node.values())
        elif isinstance(node, list):
            texts = [item for item in node if isinstance(item, str) and len(item) == 2]
            if len(set(texts)) < len(texts):
                return True
            pending.extend(node)
    return False
