"""Each event class's dict for the log, built by a plan made once per class, not field by field.

`controller.codec.event_to_dict` is the readable definition: for every record it asks the
dataclass for its fields by name, copies tuples into lists and `AwardShare`s into dicts, and
matches a table event's kind through a chain of class patterns. On the embedded engine that was
~1.5 µs of a record's ~3 µs of encoding (and a record is written for each of ~1.4 log records per
event). Here the same dict is built by one function per class, made once:

* a derived event's fields are read together by one `operator.attrgetter`; tuples and
  `AwardShare`s are left as they are, since msgspec writes a tuple as the same JSON array as a list
  and a dataclass as the object of its fields, key-sorted like the dict `_plain` makes;
* a table event's contract dict is written out per kind, an amount's text remembered per amount.

Only the msgspec writer may be handed these dicts (`json` cannot write a tuple of dataclasses):
`streams.codec.encode` uses them where it already uses msgspec, and `event_to_dict` everywhere
else, so a record that needs escapes is still written by `json` from the readable dict. A class
whose fields are not the ones its plan was written for (a field added, a type unknown here) gets
no plan and is written from `event_to_dict`; ``tests/streams/codec/test_encode.py`` requires
`reference_encode`'s bytes for every event type with arbitrary values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from controller.codec import _OMITTED_WHEN_EMPTY as OMITTED_WHEN_EMPTY  # one definition
from controller.codec import SCHEMA_VERSION
from controller.model.events import DERIVED_EVENT_TYPES, AwardShare, Event
from controller.model.money import format_cents
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)

Plain = dict[str, Any]
Plan = Callable[[Any], Plain]

# The declared types a derived event's field may have for msgspec to write it as `_plain` does
# (msgspec writes every field of an `AwardShare`, `_plain` these two).
_SHARES_PLAIN = tuple(f.name for f in dataclasses.fields(AwardShare)) == ("seat", "amount_cents")
_WRITABLE = frozenset(
    {"str", "int", "bool", "tuple[str, ...]", *(["tuple[AwardShare, ...]"] * _SHARES_PLAIN)}
)
_HEAD = ("event_id", "table_id", "round_id", "seq", "occurred_at")
# The fields each table event kind's contract dict is written from (`to_contract`): a kind whose
# dataclass has other fields gets no plan.
_TABLE_FIELDS: dict[type, tuple[str, ...]] = {
    RoundOpened: (*_HEAD, "game"),
    WagerPlaced: (*_HEAD, "seat", "wager", "amount_cents", "on"),
    WagersLocked: _HEAD,
    DecisionMade: (*_HEAD, "seat", "action", "amount_cents", "discards"),
    RoundSettled: (
        *_HEAD,
        "dealer",
        "community",
        "seats",
        "random_seat",
        "magic_card",
        "bonus_card",
    ),
    RoundVoided: (*_HEAD, "reason"),
}
_AMOUNTS: dict[int, str] = {}
_AMOUNTS_KEPT = 4_096


def _amount(cents: int) -> str:
    """`format_cents`, remembered per amount (a floor's wagers repeat a few amounts)."""
    text = _AMOUNTS.get(cents)
    if text is None:
        text = format_cents(cents)
        if len(_AMOUNTS) < _AMOUNTS_KEPT:
            _AMOUNTS[cents] = text
    return text


def _head(event: TableEvent) -> Plain:
    return {
        "event_id": event.event_id,
        "type": event.TYPE,
        "table_id": event.table_id,
        "round_id": event.round_id,
        "seq": event.seq,
        "occurred_at": event.occurred_at,
        "schema_version": SCHEMA_VERSION,
    }


def _opened(event: RoundOpened) -> Plain:
    out = _head(event)
    out["game"] = event.game
    return out


def _wager(event: WagerPlaced) -> Plain:
    out = _head(event)
    out["seat"], out["wager"], out["on"] = event.seat, event.wager, event.on
    out["amount"] = _amount(event.amount_cents)
    return out


def _decision(event: DecisionMade) -> Plain:
    out = _head(event)
    out["seat"], out["action"] = event.seat, event.action
    if event.amount_cents is not None:
        out["amount"] = _amount(event.amount_cents)
    if event.discards:
        out["discards"] = event.discards
    return out


def _settled(event: RoundSettled) -> Plain:
    out = _head(event)
    out["dealer"], out["community"] = event.dealer, event.community
    out["seats"] = {str(seat): cards for seat, cards in event.seats}
    for key, value in (
        ("random_seat", event.random_seat),
        ("magic_card", event.magic_card),
        ("bonus_card", event.bonus_card),
    ):
        if value is not None:
            out[key] = value
    return out


def _voided(event: RoundVoided) -> Plain:
    out = _head(event)
    out["reason"] = event.reason
    return out


_TABLE_PLANS: dict[type, Plan] = {
    RoundOpened: _opened,
    WagerPlaced: _wager,
    WagersLocked: _head,
    DecisionMade: _decision,
    RoundSettled: _settled,
    RoundVoided: _voided,
}


def _derived_plan(cls: type) -> Plan | None:
    """The plan of a derived event class, or None if a field is of a type not known here."""
    fields = dataclasses.fields(cls)
    if len(fields) < 2 or any(str(field.type) not in _WRITABLE for field in fields):
        return None  # one field: attrgetter would hand back the value, not a tuple
    names = tuple(field.name for field in fields)
    omitted = tuple(name for name in names if name in OMITTED_WHEN_EMPTY)
    read, kind = attrgetter(*names), cls.TYPE  # type: ignore[attr-defined]

    def plain(event: Event) -> Plain:
        out: Plain = {"type": kind}
        out.update(zip(names, read(event), strict=True))
        for name in omitted:
            if not out[name]:
                del out[name]
        out["schema_version"] = SCHEMA_VERSION
        return out

    return plain


def _table_plans() -> dict[type, Plan]:
    """The table event plans whose kind still has exactly the fields the plan reads."""
    return {
        cls: plan
        for cls, plan in _TABLE_PLANS.items()
        if tuple(f.name for f in dataclasses.fields(cls)) == _TABLE_FIELDS[cls]
    }


def _plans() -> dict[type, Plan]:
    plans = _table_plans()
    for cls in DERIVED_EVENT_TYPES.values():
        plan = _derived_plan(cls)
        if plan is not None:
            plans[cls] = plan
    return plans


#: The plan of each event class that has one; `plain_for_msgspec` falls back on the rest.
PLANS: dict[type, Plan] = _plans()
