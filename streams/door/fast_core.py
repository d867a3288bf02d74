"""JSON lines straight into the fast session: no intermediate dict, no frozen table event.

The readable way in is ``from_contract(json.loads(line))`` and then the session (or the reference
`controller.floor.decide`/`evolve`). Here a line is decoded once, in C, into the door's checked
struct (`streams.door.fast_decode.try_decode_line`: the contract's fields, types, lengths,
ranges, enums and patterns, the calendar check of ``occurred_at``, no unknown or repeated key,
no escape) and, for the four kinds that are most of a floor's traffic (a round opened, wagers,
the lock, decisions), the session decides on that struct as it stands: its deciders read events
only through `controller.fast.shapes`, which the structs satisfy (`WagerPlacedStruct.on` and
``amount_cents``, `DecisionStruct.discards` and ``amount_cents`` are views of the line's fields
with `from_contract`'s defaults). An accepted struct is kept in its round and emitted as the
event; `recorded` gives the frozen event it stands for, built only when something reads it.

Everything else takes the readable way, so the answer is always the reference's:
- a line the struct decode does not vouch for (an escape, a repeated or unknown key, a wrong type,
  a value outside the contract, a heartbeat, not JSON at all) is read by ``read`` (by default
  ``from_contract(json.loads(line))``, raising what it raises);
- a settlement or a void is decided on its frozen event (`struct_event`: a few per round, and
  the settlement reads its cards through the frozen shape);
- a struct the session's decider does not accept (a refusal, anything unusual) goes to the
  reference `decide` as its frozen event, which words the refusal.

``tests/streams/door/test_fast_core.py`` runs lines through this and through the reference and
requires the same event bytes and the same state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, Final, cast

import msgspec
from msgspec import UNSET

from controller.fast import Session
from controller.fast.build import builder, slot_defaults
from controller.fast.hot import (
    decide_decision,
    decide_lock,
    decide_open,
    decide_wager,
    decide_wager_read,
)
from controller.fast.records import KNOWN_SHAPES
from controller.fast.shapes import DecisionLike, OpenedLike, TableRecord, WagerLike
from controller.model.events import Event
from controller.model.table_events import RoundSettled, TableEvent, from_contract
from streams import native
from streams.door.contract_structs import (
    DecisionStruct,
    EventStruct,
    RoundHead,
    RoundOpenedStruct,
    RoundSettledStruct,
    RoundStruct,
    WagerPlacedStruct,
    WagersLockedStruct,
)
from streams.door.fast_decode import round_event, try_decode_line
from streams.door.json_lines import MAX_LINE_BYTES
from streams.door.struct_checks import vouched

__all__ = [
    "FAST_LINE_LIMIT",
    "Emitted",
    "decode_vouched",
    "read_reference",
    "recorded",
    "run_lines",
    "settled_event",
    "step_line",
    "struct_event",
]

#: What the session emits for a line: frozen events, and a hot table event it accepted as the
#: struct it was decoded into (`recorded` gives its frozen event).
Emitted = Event | RoundStruct
Reader = Callable[[bytes], TableEvent]

#: Where `decide_wager_struct` finds a wager struct's fields in ``astuple``'s tuple: constants,
#: which compiled code reads without a lookup; `_FIELDS_AT` says whether they are still right.
_TABLE: Final = 1
_SEQ: Final = 4
_ID: Final = 0
_ROUND: Final = 3
_SEAT: Final = 6
_KIND: Final = 7
_ON: Final = 9
_FIELDS_AT: Final = {
    "table_id": _TABLE,
    "seq": _SEQ,
    "event_id": _ID,
    "round_id": _ROUND,
    "seat": _SEAT,
    "wager": _KIND,
    "on": _ON,
}
_FIELDS: Final = msgspec.structs.astuple


def _fields_known() -> bool:
    """Whether the wager struct's fields are where the constants above say."""
    names = WagerPlacedStruct.__struct_fields__
    return all(len(names) > at and names[at] == name for name, at in _FIELDS_AT.items())


def decide_wager_struct(session: Session, e: WagerPlacedStruct) -> tuple[Event, ...] | None:
    """`controller.fast.hot.decide_wager` of a wager's struct, its fields read in one call
    (msgspec's ``astuple``, in C) instead of seven lookups by name from compiled code (~210
    instructions each: bench/PROPOSALS.md)."""
    f = _FIELDS(e)
    heads = (f[_TABLE], f[_SEQ], f[_ID], f[_ROUND])
    return decide_wager_read(session, cast(Any, e), heads, f[_SEAT], f[_KIND], f[_ON])


#: The kinds decided on their struct, with the session's decider for each (none if the session
#: does not know the kinds' shapes; `streams.embedded.lines` decides by the same table).
DIRECT: Final[dict[type, Callable[[Session, Any], tuple[Event, ...] | None]]] = (
    {
        RoundOpenedStruct: decide_open,
        WagerPlacedStruct: decide_wager_struct if _fields_known() else decide_wager,
        WagersLockedStruct: decide_lock,
        DecisionStruct: decide_decision,
    }
    if KNOWN_SHAPES
    else {}
)


#: `RoundSettled`'s fields in its order, as `settled_event` gives them to `_SETTLED`.
_SETTLED_FIELDS: Final = ("event_id", "table_id", "round_id", "seq", "occurred_at", "dealer",
                          "community", "seats", "random_seat", "magic_card",
                          "bonus_card")  # fmt: skip


def _settled_builder() -> Callable[..., RoundSettled]:
    """``RoundSettled(**dict(zip(_SETTLED_FIELDS, values)))`` without the frozen dataclass's
    ``__init__`` (eleven ``object.__setattr__`` after matching keywords: ~1.3 µs): natively when
    this process runs the extension (`streams.native.slot_builder`), else `builder`'s."""
    given = _SETTLED_FIELDS
    defaults = slot_defaults(RoundSettled, given)
    made = None if defaults is None else native.slot_builder(RoundSettled, given, defaults)
    return builder(RoundSettled, given) if made is None else made


_SETTLED: Final = _settled_builder()


def settled_event(e: RoundSettledStruct) -> RoundSettled:
    """`fast_decode.round_event` of a settlement's struct, compiled and built by `_SETTLED`: the
    same event (``tests/streams/door/test_settled_event.py``). The interpreted `round_event`
    matched the struct against four kinds first, built the head as a dict for ``**`` and sorted
    the seats through a generator: ~5 µs a settlement, for ~1 here."""
    seats = [(int(seat), tuple(hand)) for seat, hand in e.seats.items()]
    seats.sort()  # the seats' numbers are distinct (the keys are): the hands are never compared
    lucky, magic, bonus = e.random_seat, e.magic_card, e.bonus_card
    return _SETTLED(
        e.event_id,
        e.table_id,
        e.round_id,
        e.seq,
        e.occurred_at,
        tuple(e.dealer),
        tuple(e.community),
        tuple(seats),
        None if lucky is UNSET else str(lucky),
        None if magic is UNSET else magic,
        None if bonus is UNSET else bonus,
    )


def struct_event(struct: RoundStruct) -> TableEvent:
    """`fast_decode.round_event` of a round kind's struct, a settlement's by `settled_event`."""
    if type(struct) is RoundSettledStruct:
        return settled_event(struct)
    return round_event(struct)


def read_reference(line: bytes) -> TableEvent:
    """The readable way in: ``from_contract(json.loads(line))``."""
    return from_contract(json.loads(line))


def recorded(event: Emitted) -> Event:
    """The frozen event ``event`` stands for (the reference's event, equal bytes when encoded)."""
    return round_event(event) if isinstance(event, RoundHead) else event


def step_line(session: Session, line: bytes, read: Reader = read_reference) -> list[Emitted]:
    """``decide`` then ``evolve`` of the table event ``line`` holds: the events produced."""
    return run_lines(session, (line,), read)


def run_lines(
    session: Session, lines: Iterable[bytes], read: Reader = read_reference
) -> list[Emitted]:
    """`Session.run` over the table events the lines hold: every event produced, in order. A
    line ``read`` refuses raises what it raises (the events before it are then lost, as with
    `Session.run` over a command that raises). ``lines`` is read up to `_CHUNK` lines ahead of
    the decisions (`_decoded`)."""
    out: list[Emitted] = []
    extend = out.extend
    direct = DIRECT
    for line, struct in _decoded(lines):
        decider = direct.get(type(struct))
        if decider is not None and not session.pending:
            events = decider(session, struct)
            if events is not None:
                extend(events)
                continue
            # refused or unusual: the reference decides (and words a refusal)
            extend(session.reference(round_event(cast(RoundStruct, struct))))
        elif isinstance(struct, RoundHead):  # a settlement or a void
            extend(session.step(struct_event(struct)))
        else:  # not vouched for, or a heartbeat (no table event: `read` refuses it)
            extend(session.step(read(line)))
    return out


def decode_vouched(line: bytes | str) -> EventStruct | None:
    """`streams.door.fast_decode.try_decode_line`, compiled, for a line given as bytes (any
    other line is asked of it): the same checks in the same order, the same answer
    (``tests/streams/door/test_fast_core.py`` compares the two). The backslash is looked for
    with ``find``: ``b"\\" in line`` first tries the needle as an integer, and the error it
    raises and clears costs more than the search itself."""
    if not isinstance(line, bytes):
        return try_decode_line(line)
    if len(line) > _FAST_LINE_LIMIT or line.find(b"\\") >= 0:
        return None
    quotes = line.count(b'"')
    try:
        event: EventStruct = _DECODER.decode(line)
    except _FAILURES:
        return None
    return event if vouched(event, quotes) else None


_DECODER: Final = msgspec.json.Decoder(EventStruct)
_FAILURES: Final = (msgspec.MsgspecError, ValueError, TypeError, RecursionError)
#: As `streams.door.fast_decode`'s: a line this long (bytes) is left to the schema's check.
_FAST_LINE_LIMIT: Final = MAX_LINE_BYTES // 4
#: The same, for a decoder that must answer as this one (`streams.native.hot_decoder`).
FAST_LINE_LIMIT: Final = _FAST_LINE_LIMIT


def _decoded(lines: Iterable[bytes]) -> Iterator[tuple[bytes, EventStruct | None]]:
    """Each line with its struct (None: not vouched for), decoded `_CHUNK` lines at a time: the
    decoder's and the session's code each stay hot in the processor's caches for a while
    (one line each, the same work measured ~1-2 µs an event slower in wall time on this host,
    for the same instructions). Decoding reads no state, so only the order of the answers
    matters, and it is kept."""
    decode = decode_vouched
    pending = iter(lines)
    while chunk := list(islice(pending, _CHUNK)):
        yield from zip(chunk, [decode(line) for line in chunk], strict=True)


_CHUNK: Final = 512


def _protocols(
    opened: RoundOpenedStruct,
    wager: WagerPlacedStruct,
    locked: WagersLockedStruct,
    decision: DecisionStruct,
) -> tuple[OpenedLike, WagerLike, TableRecord, DecisionLike]:
    """Never called: mypy checks here that each struct is what the session's deciders read."""
    return opened, wager, locked, decision
