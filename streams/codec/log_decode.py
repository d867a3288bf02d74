"""Reading log records fast: `streams.codec.decode`'s answer with less work per record.

A replay spends most of its time turning payloads into events. Here a derived event is built by
``msgspec.convert`` straight into its dataclass (the same checks `controller.codec` makes: every
required field present, each of its declared type, a bool is no int, unknown keys ignored), and the
two commonest table events by one inlined reading of `from_contract`. Anything else, and anything
these readers are unsure of, goes to `decode`, so a record decodes to the same event or fails
with the same error (``tests/streams/codec/test_log_decode.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from controller.model.events import DERIVED_EVENT_TYPES, Event
from controller.model.money import parse_cents
from controller.model.table_events import DecisionMade, WagerPlaced


def fast_decode(payload: bytes, reference: Callable[[bytes], Event]) -> Event:
    """The event ``payload`` holds; ``reference`` (`engine.decode`) answers what this cannot."""
    try:
        raw = msgspec.json.decode(payload)
    except msgspec.DecodeError:
        return reference(payload)
    if type(raw) is dict:
        kind = raw.get("type")
        event: Event | None = _wager(raw) if kind == "wager_placed" else None
        if event is None and kind == "decision":
            event = _decision(raw)
        if event is None and type(kind) is str and kind in DERIVED_EVENT_TYPES:
            try:
                event = msgspec.convert(raw, DERIVED_EVENT_TYPES[kind], strict=True)
            except msgspec.ValidationError:
                event = None
        if event is not None:
            return event
    return reference(payload)


def _head(raw: dict[str, Any]) -> tuple[str, str, str, int, str] | None:
    event_id, table_id, round_id = raw.get("event_id"), raw.get("table_id"), raw.get("round_id")
    seq, occurred_at = raw.get("seq"), raw.get("occurred_at")
    if (
        type(event_id) is str
        and type(table_id) is str
        and type(round_id) is str
        and type(seq) is int
        and type(occurred_at) is str
    ):
        return event_id, table_id, round_id, seq, occurred_at
    return None


def _wager(raw: dict[str, Any]) -> WagerPlaced | None:
    head, seat, wager, amount = _head(raw), raw.get("seat"), raw.get("wager"), raw.get("amount")
    on = raw.get("on", "own")
    if head is None or type(seat) is not int or type(wager) is not str:
        return None
    if type(amount) is not str or type(on) is not str:
        return None
    return WagerPlaced(
        event_id=head[0],
        table_id=head[1],
        round_id=head[2],
        seq=head[3],
        occurred_at=head[4],
        seat=seat,
        wager=wager,
        amount_cents=parse_cents(amount),
        on=on,
    )


def _decision(raw: dict[str, Any]) -> DecisionMade | None:
    head, seat, action = _head(raw), raw.get("seat"), raw.get("action")
    amount, discards = raw.get("amount"), raw.get("discards", [])
    if head is None or type(seat) is not int or type(action) is not str:
        return None
    if type(amount) not in (str, type(None)) or type(discards) is not list:
        return None
    if not all(type(card) is str for card in discards):
        return None
    return DecisionMade(
        event_id=head[0],
        table_id=head[1],
        round_id=head[2],
        seq=head[3],
        occurred_at=head[4],
        seat=seat,
        action=action,
        amount_cents=None if amount is None else parse_cents(amount),
        discards=tuple(discards),
    )
