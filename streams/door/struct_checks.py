"""What the contract says that msgspec's `Meta` cannot, checked on a decoded struct.

`streams.door.fast_decode` decodes a line (or converts a parsed value) into the contract's struct
(`streams.door.contract_structs`) and vouches for it only when these checks pass as well:
``uniqueItems``, the calendar check of ``occurred_at``, ``dependentSchemas`` (``discards`` only
with ``draw``), the patterns of `PATTERNS_AFTER_DECODE` (each text matched once, then a set
lookup), and (`string_count`, compared with the line's quotes) no repeated key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final, cast

from msgspec import UNSET

from streams.door.contract_structs import (
    AMOUNT_PATTERN,
    IDENT_PATTERN,
    OWN_UNSAID,
    WAGER_NAME_PATTERN,
    CommonFields,
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

__all__ = ["after_decode_checks", "json_containers", "string_count", "vouched"]

# `PATTERNS_AFTER_DECODE`: each pattern, and the texts it already matched.
_IDENT: Final = re.compile(IDENT_PATTERN)
_AMOUNT: Final = re.compile(AMOUNT_PATTERN)
_WAGER_NAME: Final = re.compile(WAGER_NAME_PATTERN)
_IDENTS: Final[set[str]] = set()
_AMOUNTS: Final[set[str]] = set()
_WAGER_NAMES: Final[set[str]] = set()
# The parts of an instant (`_instant_ok`): ``YYYY-MM-DDTHH:MM:`` and an offset ``+HH:MM``.
_HEAD: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:\Z")
_OFFSET: Final = re.compile(r"[+-][0-9]{2}:[0-9]{2}\Z")
_EPOCH: Final = "2000-01-01T00:00:00"
_HEADS: Final[set[str]] = set()
_OFFSETS: Final[set[str]] = set()
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


def vouched(event: EventStruct, quotes: int) -> bool:
    """Whether a line holding ``quotes`` quote characters (and no backslash) and decoded into
    ``event`` passes the contract: `after_decode_checks`, and as many strings as ``event``
    holds (`string_count`: no key repeated). One dispatch on the kind for both."""
    kind = type(event)
    # the common kinds first, each called directly (compiled: a native call, no dict and no
    # Python call on the way); the order of the two checks is `_COUNTS`' then `_CHECKS`'
    if kind is WagerPlacedStruct:
        wager = cast(WagerPlacedStruct, event)
        return quotes == 2 * _wager_strings(wager) and _wager_ok(wager)
    if kind is DecisionStruct:
        decision = cast(DecisionStruct, event)
        return quotes == 2 * _decision_strings(decision) and _decision_ok(decision)
    return quotes == 2 * _COUNTS[kind](event) and _CHECKS[kind](event)


def after_decode_checks(event: EventStruct) -> bool:
    """Whether ``event`` passes what the contract says beyond its struct's `Meta` (the repeated
    keys aside: `string_count`)."""
    return _CHECKS[type(event)](event)


def string_count(event: EventStruct) -> int:
    """How many JSON strings (keys and string values) the event's text holds if no key repeats."""
    return _COUNTS[type(event)](event)


# --- each kind's checks: `PATTERNS_AFTER_DECODE` (the event id's pattern ``[!-~]{1,128}``, its
# length checked by msgspec, is printable ASCII without a space; each other text is looked up
# among those its pattern already matched, and matched and remembered only when new), the
# calendar instant, ``uniqueItems``, ``dependentSchemas``


def _head_ok(e: CommonFields) -> bool:
    event_id = e.event_id
    return (
        event_id.isascii()
        and event_id.isprintable()
        and " " not in event_id
        and (e.table_id in _IDENTS or _learn(_IDENTS, _IDENT, e.table_id))
        and _instant_ok(e.occurred_at)
    )


def _round_ok(e: RoundHead) -> bool:
    return _head_ok(e) and (e.round_id in _IDENTS or _learn(_IDENTS, _IDENT, e.round_id))


def _wager_ok(e: WagerPlacedStruct) -> bool:
    wager, amount = e.wager, e.amount
    return (
        _round_ok(e)
        and (wager in _WAGER_NAMES or _learn(_WAGER_NAMES, _WAGER_NAME, wager))
        and (amount in _AMOUNTS or _learn(_AMOUNTS, _AMOUNT, amount))
    )


def _decision_ok(e: DecisionStruct) -> bool:
    said, discards = e.amount, e.discarded
    return (
        _round_ok(e)
        and (said is UNSET or said in _AMOUNTS or _learn(_AMOUNTS, _AMOUNT, said))
        # dependentSchemas: discards only with "draw"; uniqueItems
        and (discards is UNSET or (e.action == "draw" and len(set(discards)) == len(discards)))
    )


def _settled_ok(e: RoundSettledStruct) -> bool:
    if not (_round_ok(e) and _distinct(e.dealer) and _distinct(e.community)):
        return False
    return all(_distinct(hand) for hand in e.seats.values())


def _distinct(cards: list[str]) -> bool:
    """``len(set(cards)) == len(cards)`` (``uniqueItems``) for the few cards a hand holds (at
    most 7, `Hand`), by comparing each pair, compiled: a settlement checked ~8 sets of two or
    three cards, ~0.9k instructions each to make (bench/PROPOSALS.md)."""
    size = len(cards)
    if size > _PAIRWISE:
        return len(set(cards)) == size
    for later in range(1, size):
        card = cards[later]
        for earlier in range(later):
            if cards[earlier] == card:
                return False
    return True


_PAIRWISE: Final = 7  # up to this many cards compared pair by pair (at most 21 comparisons)


def _learn(known: set[str], pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``pattern`` matches ``text``; a match is remembered (at most `_KEPT` texts: then
    the set starts again, so a stream of new round ids cannot grow it)."""
    if pattern.match(text) is None:
        return False
    if len(known) >= _KEPT:
        known.clear()
    known.add(text)
    return True


def _instant_ok(text: str) -> bool:
    """`OCCURRED_AT_PATTERN` and a real calendar instant (what ``datetime.fromisoformat`` accepts,
    as streams.door.validation asks), without a regex or a parse per event. The text is
    ``YYYY-MM-DDTHH:MM:`` (remembered when valid: `_HEADS`), seconds ``[0-5][0-9]`` (60 is no
    instant), a fraction of 1 to 9 digits (any is an instant), then ``Z`` or an offset
    (remembered when valid: `_OFFSETS`; within a day, as fromisoformat requires). The parts are
    independent for fromisoformat, so checking each alone is checking the whole."""
    head, size = text[:17], len(text)
    if not (head in _HEADS or _learn_instant(_HEADS, _HEAD, head, head + "00Z")):
        return False
    if size < 20 or not ("0" <= text[17] <= "5" and "0" <= text[18] <= "9"):
        return False
    if text[size - 1] == "Z":
        end = size - 1
    else:
        end = size - 6
        offset = text[end:]
        if end < 19 or not (
            offset in _OFFSETS or _learn_instant(_OFFSETS, _OFFSET, offset, _EPOCH + offset)
        ):
            return False
    if end == 19:
        return True
    fraction = text[20:end]
    return text[19] == "." and 0 < len(fraction) <= 9 and fraction.isascii() and fraction.isdigit()


def _learn_instant(known: set[str], pattern: re.Pattern[str], part: str, instant: str) -> bool:
    """Whether ``part`` of an instant matches ``pattern`` and ``instant`` (it completed by valid
    parts) is a real one; a valid part is remembered (at most `_KEPT`)."""
    try:
        datetime.fromisoformat(instant.replace("Z", "+00:00"))
    except ValueError:
        return False
    return _learn(known, pattern, part)


# --- each kind's strings (keys and string values) if no key repeats


def _heartbeat_strings(e: HeartbeatStruct) -> int:
    return _HEARTBEAT_STRINGS


def _strings(kind: type[RoundHead]) -> Callable[[RoundHead], int]:
    """A kind with only required string fields beyond the head."""
    fixed = _HEAD_STRINGS + _KIND_STRINGS[kind]
    return lambda e: fixed if e.schema_version is UNSET else fixed + 1


def _wager_strings(e: WagerPlacedStruct) -> int:
    count = _HEAD_STRINGS + _KIND_STRINGS[WagerPlacedStruct]
    count += 0 if e.schema_version is UNSET else 1
    return count if e.on is OWN_UNSAID else count + 2


def _decision_strings(e: DecisionStruct) -> int:
    count = _HEAD_STRINGS + _KIND_STRINGS[DecisionStruct]
    count += 0 if e.schema_version is UNSET else 1
    count += 0 if e.amount is UNSET else 2
    return count if e.discarded is UNSET else count + 1 + len(e.discarded)


def _settled_strings(e: RoundSettledStruct) -> int:
    count = _HEAD_STRINGS + _KIND_STRINGS[RoundSettledStruct]
    count += 0 if e.schema_version is UNSET else 1
    count += len(e.dealer) + len(e.community)
    count += sum(1 + len(hand) for hand in e.seats.values())
    if e.random_seat is not UNSET:
        count += 2 if isinstance(e.random_seat, str) else 1
    count += 0 if e.magic_card is UNSET else 2
    return count if e.bonus_card is UNSET else count + 2


_CHECKS: Final[dict[type, Callable[[Any], bool]]] = {
    HeartbeatStruct: _head_ok,
    RoundOpenedStruct: _round_ok,
    WagerPlacedStruct: _wager_ok,
    WagersLockedStruct: _round_ok,
    DecisionStruct: _decision_ok,
    RoundSettledStruct: _settled_ok,
    RoundVoidedStruct: _round_ok,
}
_COUNTS: Final[dict[type, Callable[[Any], int]]] = {
    HeartbeatStruct: _heartbeat_strings,
    RoundOpenedStruct: _strings(RoundOpenedStruct),
    WagerPlacedStruct: _wager_strings,
    WagersLockedStruct: _strings(WagersLockedStruct),
    DecisionStruct: _decision_strings,
    RoundSettledStruct: _settled_strings,
    RoundVoidedStruct: _strings(RoundVoidedStruct),
}


def json_containers(raw: dict[object, object]) -> bool:
    for key in ("dealer", "community", "discards"):
        if key in raw and not isinstance(raw[key], list):
            return False
    seats = raw.get("seats")
    if seats is None:
        return True
    return isinstance(seats, dict) and all(isinstance(hand, list) for hand in seats.values())
