"""Events as plain dicts, keyed by their stable ``type`` string (never a Python import path).

Table events keep their contract shape (`controller.model.table_events.to_contract`); derived
events are
their fields, with tuples as lists. ``schema_version`` travels with each dict so a later version can
be upcast by a plain dict -> dict function before `event_from_dict`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

from controller.model.errors import InvalidEvent
from controller.model.events import DERIVED_EVENT_TYPES, AwardShare, DerivedEvent, Event
from controller.model.table_events import (
    TABLE_EVENT_TYPES,
    TableEventBase,
    from_contract,
    to_contract,
)

SCHEMA_VERSION = 1
#: Fields added after events were first logged, written only when set: what older versions logged
#: keeps its bytes, and an event without them decodes to their defaults.
_OMITTED_WHEN_EMPTY = frozenset(
    {"idempotency_key", "request_digest", "second_by", "validated_by", "tables", "replaces"}
)


def event_to_dict(event: Event) -> dict[str, Any]:
    """The dict form of any event, with ``type`` and ``schema_version``."""
    if isinstance(event, TableEventBase):
        out = to_contract(event)
    else:
        out = {"type": event.TYPE}
        cls: type = type(event)
        for name in _names(cls):
            value = getattr(event, name)
            if not value and name in _OMITTED_WHEN_EMPTY:
                continue
            out[name] = _plain(value)
    out["schema_version"] = SCHEMA_VERSION
    return out


@cache
def _names(cls: type) -> tuple[str, ...]:
    """A derived event's field names, read once per class (a log holds millions of events)."""
    return tuple(field.name for field in dataclasses.fields(cls))


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, AwardShare):
        return {"seat": value.seat, "amount_cents": value.amount_cents}
    return value


def event_from_dict(raw: dict[str, Any]) -> Event:
    """The event a dict describes; InvalidEvent if its type or fields are unknown."""
    kind = raw.get("type")
    if kind in TABLE_EVENT_TYPES:
        return from_contract(raw)  # reads its own fields only, as `_derived` does
    cls = DERIVED_EVENT_TYPES.get(str(kind))
    if cls is None:
        msg = f"unknown event type {kind!r}"
        raise InvalidEvent(msg)
    return _derived(cls, raw)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_texts(value: object) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


def _is_shares(value: object) -> bool:
    return isinstance(value, list | tuple) and all(
        isinstance(v, dict) and _is_int(v.get("seat")) and _is_int(v.get("amount_cents"))
        for v in value
    )


_CHECKS: dict[str, Callable[[object], bool]] = {
    "str": lambda v: isinstance(v, str),
    "int": _is_int,
    "bool": lambda v: isinstance(v, bool),
    "tuple[str, ...]": _is_texts,
    "tuple[AwardShare, ...]": _is_shares,
}


class _Field(NamedTuple):
    """How one field of a derived event is decoded."""

    name: str
    declared: str
    check: Callable[[object], bool]
    required: bool


@cache
def _plan(cls: type) -> tuple[_Field, ...]:
    """The fields of ``cls`` with their checks, worked out once per class."""
    return tuple(
        _Field(f.name, str(f.type), _CHECKS[str(f.type)], f.default is dataclasses.MISSING)
        for f in dataclasses.fields(cls)
    )


def _derived(cls: type[DerivedEvent], body: dict[str, Any]) -> DerivedEvent:
    """Every field present (or defaulted) and of its declared type: a stored event that does not
    decode exactly is refused here, so `evolve` never meets a malformed event."""
    values: dict[str, Any] = {}
    plain_cls: type = cls  # a plain `type` as the cache key
    for field in _plan(plain_cls):
        if field.name not in body:
            if not field.required:
                continue
            msg = f"{cls.TYPE}: required field {field.name!r} is missing"
            raise InvalidEvent(msg)
        value = body[field.name]
        if not field.check(value):
            msg = f"{cls.TYPE}.{field.name}: expected {field.declared}, got {value!r:.80}"
            raise InvalidEvent(msg)
        if field.name == "winners":
            value = tuple(AwardShare(seat=w["seat"], amount_cents=w["amount_cents"]) for w in value)
        elif isinstance(value, list):
            value = tuple(value)
        values[field.name] = value
    return cls(**values)
