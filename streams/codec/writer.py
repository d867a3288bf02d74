"""Each event class's record built by a plan made once per class, not walked field by field.

`controller.codec.event_to_dict` is the readable definition: for every record it asks the
dataclass for its fields by name, copies tuples into lists and `AwardShare`s into dicts, and
matches a table event's kind through a chain of class patterns, and msgspec then sorts the
dict's keys. On the embedded engine that was ~34k instructions of a record's encoding (and a
table event makes ~1.4 records). Here each class gets, once, a function that hands msgspec the
same object more cheaply:

* a table event kind, and a derived event whose fields are all always written (contributions,
  awards, hits), becomes a `msgspec.Struct` built positionally (`gc=False`): no dict, and
  msgspec's sorted writer orders the keys; `omit_defaults` leaves out exactly what `to_contract`
  leaves out (an absent amount or card, no discards);
* a derived event with fields written only when set (`_OMITTED_WHEN_EMPTY`: configurations,
  corrections, transfers; rare) becomes the dict, its fields read by one `operator.attrgetter`;
* tuples and `AwardShare`s are left as they are: msgspec writes a tuple as the same JSON array
  as a list and a dataclass as the object of its fields, key-sorted like the dict `_plain` makes;
* an amount's text is remembered per amount.

Only the msgspec writer may be handed these (`json` cannot write a struct): `streams.codec.encode`
uses them where it already used msgspec, and a record that needs an escape is still written by
`json` from `event_to_dict`. A class whose fields are not the ones its plan was written for (a
field added, a type unknown here) gets no plan and is written from `event_to_dict`;
``tests/streams/codec/test_encode.py`` requires `reference_encode`'s bytes for every event type
with arbitrary values (it failed on a default changed, two fields swapped, and a dict plan's
omissions skipped).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any

import msgspec

from controller.codec import _OMITTED_WHEN_EMPTY as OMITTED_WHEN_EMPTY  # one definition
from controller.codec import SCHEMA_VERSION
from controller.model.events import DERIVED_EVENT_TYPES, AwardShare, Event
from controller.model.money import format_cents
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    WagerPlaced,
    WagersLocked,
)

Plain = dict[str, Any]
#: An event's record as msgspec writes it: a struct, or (a class with fields written only when
#: set) a dict.
Plan = Callable[[Any], msgspec.Struct | Plain]

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


def _record_struct(
    name: str, fields: tuple[str, ...], optional: dict[str, object] | None = None
) -> Callable[..., msgspec.Struct]:
    """A struct written as a record's object: ``type``, ``schema_version``, then ``fields``
    (msgspec's sorted writer puts the keys in order); each ``optional`` field is left out
    while it holds its default, as `to_contract` leaves out an absent amount or card."""
    spec: list[tuple[str, type] | tuple[str, type, object]] = [
        (field, object) for field in ("type", "schema_version", *fields)
    ]
    spec += [(field, object, default) for field, default in (optional or {}).items()]
    return msgspec.defstruct(f"{name}Record", spec, omit_defaults=True, gc=False)


_KEYS = ("event_id", "table_id", "round_id", "seq", "occurred_at")
_Opened = _record_struct("RoundOpened", (*_KEYS, "game"))
_Wager = _record_struct("WagerPlaced", (*_KEYS, "seat", "wager", "on", "amount"))
_Locked = _record_struct("WagersLocked", _KEYS)
_Decision = _record_struct(
    "DecisionMade", (*_KEYS, "seat", "action"), {"amount": None, "discards": ()}
)
_Settled = _record_struct(
    "RoundSettled",
    (*_KEYS, "dealer", "community", "seats"),
    {"random_seat": None, "magic_card": None, "bonus_card": None},
)
_Voided = _record_struct("RoundVoided", (*_KEYS, "reason"))


def _opened(e: RoundOpened) -> msgspec.Struct:
    return _Opened(RoundOpened.TYPE, SCHEMA_VERSION, e.event_id, e.table_id, e.round_id, e.seq,
                   e.occurred_at, e.game)  # fmt: skip


def _wager(e: WagerPlaced) -> msgspec.Struct:
    return _Wager(WagerPlaced.TYPE, SCHEMA_VERSION, e.event_id, e.table_id, e.round_id, e.seq,
                  e.occurred_at, e.seat, e.wager, e.on, _amount(e.amount_cents))  # fmt: skip


def _locked(e: WagersLocked) -> msgspec.Struct:
    return _Locked(WagersLocked.TYPE, SCHEMA_VERSION, e.event_id, e.table_id, e.round_id, e.seq,
                   e.occurred_at)  # fmt: skip


def _decision(e: DecisionMade) -> msgspec.Struct:
    amount = None if e.amount_cents is None else _amount(e.amount_cents)
    return _Decision(DecisionMade.TYPE, SCHEMA_VERSION, e.event_id, e.table_id, e.round_id, e.seq,
                     e.occurred_at, e.seat, e.action, amount, e.discards or ())  # fmt: skip


def _settled(e: RoundSettled) -> msgspec.Struct:
    seats = {str(seat): cards for seat, cards in e.seats}
    return _Settled(RoundSettled.TYPE, SCHEMA_VERSION, e.event_id, e.table_id, e.round_id, e.seq,
                    e.occurred_at, e.dealer, e.community, seats, e.random_seat, e.magic_card,
                    e.bonus_card)  # fmt: skip


def _voided(e: RoundVoided) -> msgspec.Struct:
    return _Voided(RoundVoided.TYPE, SCHEMA_VERSION, e.event_id, e.table_id, e.round_id, e.seq,
                   e.occurred_at, e.reason)  # fmt: skip


_TABLE_PLANS: dict[type, Plan] = {
    RoundOpened: _opened,
    WagerPlaced: _wager,
    WagersLocked: _locked,
    DecisionMade: _decision,
    RoundSettled: _settled,
    RoundVoided: _voided,
}


def _derived_plan(cls: type) -> Plan | None:
    """The plan of a derived event class, or None if a field is of a type not known here (or
    named like the two keys every record has)."""
    fields = dataclasses.fields(cls)
    names = tuple(field.name for field in fields)
    if len(fields) < 2 or any(str(field.type) not in _WRITABLE for field in fields):
        return None  # one field: attrgetter would hand back the value, not a tuple
    if {"type", "schema_version"} & set(names):
        return None
    read, kind = attrgetter(*names), cls.TYPE  # type: ignore[attr-defined]
    omitted = tuple(name for name in names if name in OMITTED_WHEN_EMPTY)
    if not omitted:  # every field written: a struct, no dict (the hot records: contributions)
        record = _record_struct(cls.__name__, names)
        return lambda event: record(kind, SCHEMA_VERSION, *read(event))

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
    """The table event plans whose kind still has exactly the fields the plan reads. A plan
    reads its event's fields by name only (the kind's ``type`` is the class's constant), so it
    writes the same record from any object with those fields: `TABLE_PLANS` lets the embedded
    engine write an accepted line's record from the door's checked struct, no frozen event built."""
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
#: The table event kinds' plans (those still valid), by class: see `_table_plans`.
TABLE_PLANS: dict[type, Plan] = _table_plans()
