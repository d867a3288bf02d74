"""The alerts surveillance gets from the event stream: pure functions over events, no I/O.

Each alert carries its reason:

- ``repeated_card``: a settlement refused because a card appears twice (one deck is dealt);
- ``wager_after_lock``: a wager refused because the round's wagers were already locked;
- ``envy_storm``: more than ``envy_storm_over`` Envy Bonuses in one round of one table (every
  Envy Bonus of a round comes from its settlement, so they are all in one batch);
- ``meter_moved_without_round``: a meter correction (authorised, but no round explains it), or a
  meter whose amount changed with no meter event for it in the batch (`unexplained_moves`);
- ``table_silent``, ``table_heard``, ``tables_unknown``: loss of communication with a table and its
  recovery (raised by `streams.live.playability`, not by events).

`streams.live.activity` turns events into rows; `streams.live.feed` fans both out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Final, Literal

from controller.model.events import EnvyAwarded, Event, EventRejected, MeterCorrected, MeterEvent
from controller.model.money import format_subunits

Row = dict[str, object]
AlertKind = Literal[
    "repeated_card",
    "wager_after_lock",
    "envy_storm",
    "meter_moved_without_round",
    "table_silent",  # streams.live.playability: loss of communication, and recovery
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
    """The alert a rejection raises: from its reason (`controller.rules.round_checks`,
    `controller.model.cards`), or for the schema's "different cards" refusal (which also covers a
    bad
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
