"""The door, fast: one JSON line to a checked table event in a few microseconds (msgspec).

`streams.door.validation` checks each event with jsonschema (~0.3-0.8 ms): too slow for 20,000
events/s.
Here each event kind of ``schemas/table-event.v1.json`` and ``v2`` is a `msgspec.Struct`
(`streams.door.contract_structs`: a tagged union on ``type``, unknown fields forbidden, the schema's
lengths, ranges, enums and most patterns as `Meta`), and the rest is checked after decoding
(`streams.door.struct_checks`): ``uniqueItems``, the calendar check of ``occurred_at``,
``dependentSchemas`` (``discards`` only with ``draw``), the patterns of the ids, wager names and
amounts (a text seen before is one set lookup), and no repeated key.

The verdict is always the contract's. The fast path only *vouches* for an event it is sure of; for
anything else (an error, a JSON escape, an integer written ``3.0``, an oversized line) it steps
aside and `streams.door.validation` decides, so a refusal carries exactly the readable reason it
always did and the rare event the fast path is unsure of is still accepted when valid.
``tests/streams/door/test_fast_decode.py`` checks the two against each other with Hypothesis.

Why the fast path refuses lines with a backslash: without one, every ``"`` in valid JSON delimits a
string, so counting quotes counts the keys and string values exactly. A decoded struct keeps the
last of repeated keys (msgspec, like most parsers), while the contract refuses repeats; comparing
the count with what the struct holds proves no key was repeated, without a second parse.

The returned dicts equal `streams.door.validation`'s (defaults filled); only their key order may
differ.
Version 2 adds one kind, ``heartbeat``, and otherwise only allows ``"schema_version": 2`` on the
version 1 kinds, so one set of structs serves both (a heartbeat's version is required and 2). A
heartbeat is no table event: `decode_event` and `validate_to_event` give a
`streams.liveness.tracker.Heartbeat` for it, which never reaches the core.
"""

from __future__ import annotations

from typing import Final, TypedDict, assert_never

import msgspec
from msgspec import UNSET

from controller.model.money import parse_cents
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableEvent,
    WagerPlaced,
    WagersLocked,
    from_contract,
)
from streams.door.contract_structs import (
    OWN_UNSAID,
    STRUCT_BY_TYPE,
    DecisionStruct,
    EventStruct,
    HeartbeatStruct,
    RoundHead,
    RoundOpenedStruct,
    RoundSettledStruct,
    RoundStruct,
    RoundVoidedStruct,
    WagerPlacedStruct,
    WagersLockedStruct,
)
from streams.door.heartbeat import Heartbeat
from streams.door.json_lines import MAX_LINE_BYTES, parse_json_line
from streams.door.struct_checks import after_decode_checks, json_containers, vouched
from streams.door.validation import validate_table_event

__all__ = [
    "decode_event",
    "decode_line",
    "round_event",
    "to_event",
    "try_decode_line",
    "try_validate",
    "validate_event",
    "validate_to_event",
]

_DECODER: Final = msgspec.json.Decoder(EventStruct)
_PLAIN: Final = msgspec.json.Decoder()
_FAILURES: Final = (msgspec.MsgspecError, ValueError, TypeError, RecursionError)
# A line this long (in bytes or characters) is under MAX_LINE_BYTES whatever its characters are:
# longer ones are left to streams.door.validation, which measures them exactly. Events are ~300
# bytes.
_FAST_LINE_LIMIT: Final = MAX_LINE_BYTES // 4
# --- public API ----------------------------------------------------------------------------------


def decode_line(line: bytes | str) -> dict[str, object]:
    """`validate_table_event(parse_json_line(line))`, fast: same result, same `InvalidEvent`."""
    event = try_decode_line(line)
    if event is None:
        return validate_table_event(parse_json_line(line))
    # A second, untyped parse (under a microsecond) gives the dict in the line's key order, as
    # streams.door.validation returns it; msgspec.to_builtins(event) would be slower.
    return _with_defaults(_PLAIN.decode(line), event)


def to_event(checked: dict[str, object]) -> TableEvent | Heartbeat:
    """The table event (or heartbeat) a contract dict checked by `validate_table_event` holds."""
    if checked.get("type") == "heartbeat":
        return Heartbeat(
            event_id=str(checked["event_id"]),
            table_id=str(checked["table_id"]),
            occurred_at=str(checked["occurred_at"]),
        )
    return from_contract(checked)


def decode_event(line: bytes | str) -> TableEvent | Heartbeat:
    """`to_event(decode_line(line))`, fast: the table event (or heartbeat) a JSON line holds."""
    event = try_decode_line(line)
    if event is None:
        return to_event(validate_table_event(parse_json_line(line)))
    return table_event(event)


def validate_event(raw: object) -> dict[str, object]:
    """`validate_table_event(raw)` for an already parsed JSON value, fast: same result or error."""
    checked = try_validate(raw)
    return validate_table_event(raw) if checked is None else checked


def validate_to_event(raw: object) -> TableEvent | Heartbeat:
    """`to_event(validate_table_event(raw))`, fast: the table event a parsed value holds."""
    event = _try_struct(raw) if isinstance(raw, dict) else None
    if event is None:
        return to_event(validate_table_event(raw))
    return table_event(event)


def try_decode_line(line: bytes | str) -> EventStruct | None:
    """The checked struct of a line the fast path can vouch for, else None (let the schema say)."""
    if len(line) > _FAST_LINE_LIMIT:
        return None
    try:
        if isinstance(line, str):
            if "\\" in line:
                return None
            quotes = line.count('"')
        else:
            if line.find(b"\\") >= 0:  # `in` tries the needle as an int first: a TypeError a line
                return None
            quotes = line.count(b'"')
        event: EventStruct = _DECODER.decode(line)
    except _FAILURES:
        return None
    return event if vouched(event, quotes) else None


def try_validate(raw: object) -> dict[str, object] | None:
    """`validate_table_event(raw)` when the fast path can vouch for ``raw``, else None."""
    if not isinstance(raw, dict):
        return None
    event = _try_struct(raw)
    return None if event is None else _with_defaults(dict(raw), event)


def _try_struct(raw: dict[object, object]) -> EventStruct | None:
    kind = raw.get("type")
    # Converting to the one struct the tag names: msgspec.convert to the union is ~5 times slower.
    struct = STRUCT_BY_TYPE.get(kind) if isinstance(kind, str) else None
    if struct is None:
        return None
    try:
        event: EventStruct = msgspec.convert(raw, struct, strict=True)
    except _FAILURES:
        return None
    # msgspec.convert takes any sequence for a list and any mapping for an object; JSON Schema
    # only Python lists and dicts.
    if not json_containers(raw) or not after_decode_checks(event):
        return None
    return event


# --- from a checked struct -----------------------------------------------------------------------


def _with_defaults(out: dict[str, object], event: EventStruct) -> dict[str, object]:
    """The defaults streams.door.validation fills: schema_version 1; "on" "own" for a wager."""
    if isinstance(event, RoundHead) and event.schema_version is UNSET:
        out["schema_version"] = 1
    if isinstance(event, WagerPlacedStruct) and event.on is OWN_UNSAID:
        out["on"] = "own"
    return out


class _HeadFields(TypedDict):
    event_id: str
    table_id: str
    round_id: str
    seq: int
    occurred_at: str


def table_event(event: EventStruct) -> TableEvent | Heartbeat:
    """The table event `to_event` would build from the contract dict, built directly."""
    if isinstance(event, HeartbeatStruct):
        return Heartbeat(
            event_id=event.event_id, table_id=event.table_id, occurred_at=event.occurred_at
        )
    return round_event(event)


def round_event(event: RoundStruct) -> TableEvent:
    """The table event a round kind's checked struct holds: `from_contract`'s, built directly."""
    head = _HeadFields(
        event_id=event.event_id,
        table_id=event.table_id,
        round_id=event.round_id,
        seq=event.seq,
        occurred_at=event.occurred_at,
    )
    match event:
        case RoundOpenedStruct():
            return RoundOpened(**head, game=event.game)
        case WagerPlacedStruct():
            return WagerPlaced(
                **head,
                seat=event.seat,
                wager=event.wager,
                amount_cents=parse_cents(event.amount),
                on=event.on,
            )
        case WagersLockedStruct():
            return WagersLocked(**head)
        case DecisionStruct():
            return DecisionMade(
                **head,
                seat=event.seat,
                action=event.action,
                amount_cents=None if event.amount is UNSET else parse_cents(event.amount),
                discards=event.discards,
            )
        case RoundSettledStruct():
            random_seat = event.random_seat
            return RoundSettled(
                **head,
                dealer=tuple(event.dealer),
                community=tuple(event.community),
                seats=tuple(sorted((int(seat), tuple(hand)) for seat, hand in event.seats.items())),
                random_seat=None if random_seat is UNSET else str(random_seat),
                magic_card=None if event.magic_card is UNSET else event.magic_card,
                bonus_card=None if event.bonus_card is UNSET else event.bonus_card,
            )
        case RoundVoidedStruct():
            return RoundVoided(**head, reason=event.reason)
        case _:
            assert_never(event)
