"""The round processor's door: a table-events record to its frozen table event (or heartbeat),
`streams.door.fast_decode.decode_event`'s answer for every input, built faster.

The door decodes a line into its checked contract struct in C (`try_decode_line`, what
`streams.door.fast_core` uses) and then builds the frozen event through the dataclass's keyword
``__init__`` (`round_event`): ~2.5 µs of a wager's ~5, because a frozen dataclass sets each field
through ``object.__setattr__``. The four kinds that are most of a floor's traffic (a round opened,
wagers, the lock, decisions) are built here by `controller.fast.build.builder` (each slot set
through its own descriptor: the same object, field for field) from the struct's fields as
`round_event` reads them; a settlement is built by `streams.door.fast_core.settled_event` as the
embedded engine builds it (compiled: ~1 µs, the interpreted `round_event` ~5), a void by
`round_event` itself. A line the struct decode does not vouch for falls back exactly as the door
does (the schema check, which words the refusal). ``tests/streams/scaleout/test_table_read.py``
compares this with `decode_event`.

When the native extension runs (`streams.native`), `read` first asks its decoder of those four
kinds (`streams.door.hot_lines.hot_decoder`, as `streams.embedded.lines` makes its own: one
pass over the line in Rust gives the door's struct and the event's log record,
`streams.codec.encode`'s bytes), so the round processor neither decodes such a line in Python
nor encodes its event; a line it does not answer (None: anything unusual) goes the door's way as
before, and without the extension every line does. ``tests/streams/scaleout/test_native_read.py``
holds the processor's outputs with and without it equal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from msgspec import UNSET

from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)
from streams import native
from streams.door.contract_structs import (
    DecisionStruct,
    HeartbeatStruct,
    RoundOpenedStruct,
    WagerPlacedStruct,
    WagersLockedStruct,
)
from streams.door.fast_core import struct_event
from streams.door.fast_decode import to_event, try_decode_line
from streams.door.heartbeat import Heartbeat
from streams.door.hot_lines import hot_decoder
from streams.door.json_lines import parse_json_line
from streams.door.validation import validate_table_event
from streams.scaleout.records import fast_builder

_HEAD: Final = ("event_id", "table_id", "round_id", "seq", "occurred_at")
_OPENED: Final = fast_builder(RoundOpened, (*_HEAD, "game"))
_WAGER: Final = fast_builder(WagerPlaced, (*_HEAD, "seat", "wager", "amount_cents", "on"))
_LOCKED: Final = fast_builder(WagersLocked, _HEAD)
_DECISION: Final = fast_builder(
    DecisionMade, (*_HEAD, "seat", "action", "amount_cents", "discards")
)


#: ``(struct, payload)`` of a hot line the door vouches for, natively (None: ask the door).
HOT: Final = hot_decoder()


def read(raw: bytes, hot: native.HotDecode | None) -> tuple[TableEvent | Heartbeat, bytes | None]:
    """`read_event(raw)` and, when ``hot`` (a native decoder, or None) answered the line, its
    event's log record (`streams.codec.encode`'s bytes, written from the line); else None."""
    decoded = None if hot is None else hot(raw)
    if decoded is None:
        return read_event(raw), None
    struct, payload = decoded
    return BUILDS[type(struct)](struct), payload


def read_event(raw: bytes) -> TableEvent | Heartbeat:
    """`decode_event(raw)`: the same event, or the same `InvalidEvent` for a refused line."""
    struct = try_decode_line(raw)
    if struct is None:  # the door's own fallback: the schema decides and words the refusal
        return to_event(validate_table_event(parse_json_line(raw)))
    build = BUILDS.get(type(struct))
    if build is not None:
        return build(struct)
    if isinstance(struct, HeartbeatStruct):
        return Heartbeat(
            event_id=struct.event_id, table_id=struct.table_id, occurred_at=struct.occurred_at
        )
    return struct_event(struct)  # a settlement's built compiled (`settled_event`), a void's as ever


def _opened(e: RoundOpenedStruct) -> TableEvent:
    return _OPENED(e.event_id, e.table_id, e.round_id, e.seq, e.occurred_at, e.game)


def _wager(e: WagerPlacedStruct) -> TableEvent:
    head = (e.event_id, e.table_id, e.round_id, e.seq, e.occurred_at)
    return _WAGER(*head, e.seat, e.wager, e.amount_cents, e.on)


def _locked(e: WagersLockedStruct) -> TableEvent:
    return _LOCKED(e.event_id, e.table_id, e.round_id, e.seq, e.occurred_at)


def _decision(e: DecisionStruct) -> TableEvent:
    head = (e.event_id, e.table_id, e.round_id, e.seq, e.occurred_at)
    amount = None if e.amount is UNSET else e.amount_cents
    return _DECISION(*head, e.seat, e.action, amount, e.discards)


#: The event builder of each hot struct (`read`'s; the open table's compiled `event_of` reads it
#: too, so that an input or a sealed wager pays no interpreted call for the lookup).
BUILDS: Final[dict[type, Callable[[Any], TableEvent]]] = {
    RoundOpenedStruct: _opened,
    WagerPlacedStruct: _wager,
    WagersLockedStruct: _locked,
    DecisionStruct: _decision,
}
