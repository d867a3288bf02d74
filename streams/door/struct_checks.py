"""What the contract says that msgspec's `Meta` cannot, checked on a decoded struct.

`streams.door.fast_decode` decodes a line (or converts a parsed value) into the contract's struct
(`streams.door.contract_structs`) and vouches for it only when these checks pass as well:
``uniqueItems``, the calendar check of ``occurred_at``, ``dependentSchemas`` (``discards`` only
with ``draw``), the patterns of `PATTERNS_AFTER_DECODE` (each text matched once, then a set
lookup), and (`string_count`, compared with the line's quotes) no repeated key.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Final

from msgspec import UNSET

from streams.door.contract_structs import (
    AMOUNT_PATTERN,
    IDENT_PATTERN,
    WAGER_NAME_PATTERN,
    DecisionStruct,
    EventStruct,
    HeartbeatStruct,
    RoundHead,
    RoundOpenedStruct,
    RoundSettledStruct,
    RoundVoidedStruct,
    WagerPlacedStruct,
    WagersLockedStruct,
)

__all__ = ["after_decode_checks", "json_containers", "string_count"]

# `PATTERNS_AFTER_DECODE`: each pattern, and the texts it already matched.
_IDENT: Final = re.compile(IDENT_PATTERN)
_AMOUNT: Final = re.compile(AMOUNT_PATTERN)
_WAGER_NAME: Final = re.compile(WAGER_NAME_PATTERN)
_IDENTS: Final[set[str]] = set()
_AMOUNTS: Final[set[str]] = set()
_WAGER_NAMES: Final[set[str]] = set()
_KEPT: Final = 65_536
# Strings (keys and values) of the fields every event has: type, event_id, table_id, round_id,
# occurred_at as key and value, seq as key only; then what each kind's required fields add.
_HEAD_STRINGS: Final = 11
# A heartbeat: type, event_id, table_id, occurred_at as key and value; schema_version as key only.
_HEARTBEAT_STRINGS: Final = 9
_KIND_STRINGS: Final[dict[type[RoundHead], int]] = {
    RoundOpenedStruct: 2,
    WagerPlacedStruct: 5,
    WagersLockedStruct: 0,
    DecisionStruct: 3,
    RoundSettledStruct: 3,
    RoundVoidedStruct: 2,
}


def after_decode_checks(event: EventStruct) -> bool:
    """Whether ``event`` passes what the contract says beyond its struct's `Meta` (the repeated
    keys aside: `string_count`)."""
    if not (_real_instant(event.occurred_at) and _texts_ok(event)):
        return False
    match event:
        case DecisionStruct():
            discards = event.discarded
            if discards is UNSET:
                return True
            # dependentSchemas: discards only with "draw"; uniqueItems
            return event.action == "draw" and len(set(discards)) == len(discards)
        case RoundSettledStruct():
            return (
                len(set(event.dealer)) == len(event.dealer)
                and len(set(event.community)) == len(event.community)
                and all(len(set(hand)) == len(hand) for hand in event.seats.values())
            )
        case _:
            return True


def _texts_ok(event: EventStruct) -> bool:
    """`PATTERNS_AFTER_DECODE`: the event id's pattern ``[!-~]{1,128}`` (its length checked by
    msgspec) is printable ASCII without a space; each other text is looked up among those its
    pattern already matched, and matched (and remembered) only when new."""
    event_id = event.event_id
    if not (event_id.isascii() and event_id.isprintable()) or " " in event_id:
        return False
    if event.table_id not in _IDENTS and not _learn(_IDENTS, _IDENT, event.table_id):
        return False
    if isinstance(event, HeartbeatStruct):
        return True
    if event.round_id not in _IDENTS and not _learn(_IDENTS, _IDENT, event.round_id):
        return False
    if isinstance(event, WagerPlacedStruct):
        wager, amount = event.wager, event.amount
        if wager not in _WAGER_NAMES and not _learn(_WAGER_NAMES, _WAGER_NAME, wager):
            return False
        return amount in _AMOUNTS or _learn(_AMOUNTS, _AMOUNT, amount)
    if isinstance(event, DecisionStruct):
        said = event.amount
        return said is UNSET or said in _AMOUNTS or _learn(_AMOUNTS, _AMOUNT, said)
    return True


def _learn(known: set[str], pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``pattern`` matches ``text``; a match is remembered (at most `_KEPT` texts: then
    the set starts again, so a stream of new round ids cannot grow it)."""
    if pattern.match(text) is None:
        return False
    if len(known) >= _KEPT:
        known.clear()
    known.add(text)
    return True


def _real_instant(text: str) -> bool:
    """Format date-time beyond its pattern: a real calendar instant (as streams.door.validation)."""
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def string_count(event: EventStruct) -> int:
    """How many JSON strings (keys and string values) the event's text holds if no key repeats."""
    if isinstance(event, HeartbeatStruct):
        return _HEARTBEAT_STRINGS
    count = _HEAD_STRINGS + _KIND_STRINGS[type(event)]
    if event.schema_version is not UNSET:
        count += 1
    match event:
        case WagerPlacedStruct():
            count += 0 if event.target is UNSET else 2
        case DecisionStruct():
            count += 0 if event.amount is UNSET else 2
            count += 0 if event.discarded is UNSET else 1 + len(event.discarded)
        case RoundSettledStruct():
            count += len(event.dealer) + len(event.community)
            count += sum(1 + len(hand) for hand in event.seats.values())
            if event.random_seat is not UNSET:
                count += 2 if isinstance(event.random_seat, str) else 1
            count += 0 if event.magic_card is UNSET else 2
            count += 0 if event.bonus_card is UNSET else 2
        case _:
            pass
    return count


def json_containers(raw: dict[object, object]) -> bool:
    for key in ("dealer", "community", "discards"):
        if key in raw and not isinstance(raw[key], list):
            return False
    seats = raw.get("seats")
    if seats is None:
        return True
    return isinstance(seats, dict) and all(isinstance(hand, list) for hand in seats.values())
