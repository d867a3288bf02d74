"""A replay's hot records read straight into light structs the session applies, never built as
frozen events.

Replaying a log, most records are the table events of a round and the meters' contributions; the
session keeps a wager or a decision in its round only until the next round opens, and reads
nothing else of the rest (`controller.fast.shapes`). msgspec decodes each such record in one
C call into a struct holding exactly the event's fields (same names, same types, same defaults;
`SHAPES_MATCH` checks it when this module loads), checking what `streams.codec.decode` checks:
every required field present and of its declared type, a bool is no int, unknown keys ignored,
an amount one that `controller.model.money.parse_cents` accepts (remembered per text). A record
this reader refuses, for whatever reason, is read by `decode` as before: the reader only ever
accepts records `decode` accepts, with the same values (``tests/streams/codec/test_records.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any

import msgspec

from controller.fast import apply
from controller.fast.session import Session
from controller.model.errors import InvalidEvent
from controller.model.events import ContributionRecorded, FixedAwarded
from controller.model.money import parse_cents
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    WagerPlaced,
    WagersLocked,
)

_CENTS: dict[str, int] = {}
_CENTS_KEPT = 4_096  # a log holds a few distinct amounts; a hostile one cannot grow this


def cents(text: str) -> int:
    """`parse_cents` of ``text``, remembered per text; ValueError for what it refuses (msgspec
    then refuses the record, and `decode` reads it and raises `parse_cents`'s own error)."""
    value = _CENTS.get(text)
    if value is None:
        try:
            value = parse_cents(text)
        except InvalidEvent as refused:
            raise ValueError(str(refused)) from None
        if len(_CENTS) < _CENTS_KEPT:
            _CENTS[text] = value
    return value


class _Record(msgspec.Struct, tag_field="type", frozen=True, gc=False):
    """The fields of each record below are in the order the log writes its keys (sorted):
    msgspec then finds each next key where it expects it. Each is keyword-only, so that order is
    free of where the defaults fall. Nothing here refers back to anything: no cycles to collect."""


class Opened(_Record, tag="round_opened", frozen=True, kw_only=True):
    """A `RoundOpened`."""

    event_id: str
    game: str
    occurred_at: str
    round_id: str
    seq: int
    table_id: str


class Wager(_Record, tag="wager_placed", frozen=True, kw_only=True):
    """A `WagerPlaced` (its ``amount`` the contract's text; ``amount_cents`` its value)."""

    amount: str
    event_id: str
    occurred_at: str
    on: str = "own"
    round_id: str
    seat: int
    seq: int
    table_id: str
    wager: str

    def __post_init__(self) -> None:
        """The amount is checked as it is read (a known text is a dict hit)."""
        if self.amount not in _CENTS:
            cents(self.amount)

    @property
    def amount_cents(self) -> int:
        """The amount in cents."""
        return cents(self.amount)


class Decision(_Record, tag="decision", frozen=True, kw_only=True):
    """A `DecisionMade` (its ``amount`` the contract's text; ``amount_cents`` its value)."""

    action: str
    amount: str | None = None
    discards: tuple[str, ...] = ()
    event_id: str
    occurred_at: str
    round_id: str
    seat: int
    seq: int
    table_id: str

    def __post_init__(self) -> None:
        """The amount, if any, is checked as it is read."""
        if self.amount is not None and self.amount not in _CENTS:
            cents(self.amount)

    @property
    def amount_cents(self) -> int | None:
        """The amount in cents, if any."""
        return None if self.amount is None else cents(self.amount)


class Locked(_Record, tag="wagers_locked", frozen=True, kw_only=True):
    """A `WagersLocked`."""

    event_id: str
    occurred_at: str
    round_id: str
    seq: int
    table_id: str


class Settled(_Record, tag="round_settled", frozen=True, kw_only=True):
    """A `RoundSettled`: read whole, so a malformed one is refused as `decode` refuses it."""

    bonus_card: str | None = None
    community: tuple[str, ...] = ()
    dealer: tuple[str, ...] = ()
    event_id: str
    magic_card: str | None = None
    occurred_at: str
    random_seat: str | None = None
    round_id: str
    seats: dict[str, tuple[str, ...]]
    seq: int
    table_id: str

    def __post_init__(self) -> None:
        """`_seat_cards` wants seat numbers; anything but ASCII digits is left to `decode`."""
        for key in self.seats:
            if not (key.isdigit() and key.isascii()):
                msg = "not a seat number"
                raise ValueError(msg)


class Contribution(_Record, tag="contribution_recorded", frozen=True, kw_only=True):
    """A `ContributionRecorded`."""

    divert_to: str = ""
    diverted_sub: int = 0
    meter_id: str
    meter_seq: int
    occurred_at: str
    on: str
    overflow_sub: int = 0
    primary_sub: int
    reserve_sub: int
    round_id: str
    seat: int
    table_id: str
    wager: str
    wager_cents: int


class Fixed(_Record, tag="fixed_awarded", frozen=True, kw_only=True):
    """A `FixedAwarded`."""

    amount_cents: int
    cards: tuple[str, ...]
    hand: str
    hit_id: str = ""
    meter_id: str
    occurred_at: str
    on: str
    round_id: str
    seat: int
    table_id: str
    wager: str


Record = Opened | Wager | Decision | Locked | Settled | Contribution | Fixed
#: Each struct, the event it stands for, and how the session applies it.
_PLAN: tuple[tuple[type[Any], type, Callable[[Session, Any], bool]], ...] = (
    (Opened, RoundOpened, apply.apply_opened),
    (Wager, WagerPlaced, apply.apply_wager),
    (Decision, DecisionMade, apply.apply_decision),
    (Locked, WagersLocked, apply.apply_locked),
    (Settled, RoundSettled, apply.apply_settled),
    (Contribution, ContributionRecorded, apply.apply_contribution),
    (Fixed, FixedAwarded, apply.apply_fixed),
)
APPLIERS: dict[type, Callable[[Session, Any], bool]] = {s: f for s, _, f in _PLAN}


def _struct_fields(struct: type[Any]) -> dict[str, object]:
    """The fields, ``amount`` under the event's name for it."""
    return {
        "amount_cents" if f.name == "amount" else f.name: MISSING if f.required else f.default
        for f in msgspec.structs.fields(struct)
    }


def _event_fields(event: type) -> dict[str, object]:
    return {f.name: f.default for f in fields(event)}


def _same_shape(struct: type[Any], event: type) -> bool:
    """The same field names; for a derived event (read by `controller.codec._derived`, which
    fills the dataclass's defaults) the same defaults too. A table event's contract defaults are
    `from_contract`'s, written out in the structs above."""
    ours, theirs = _struct_fields(struct), _event_fields(event)
    if struct in _TABLE_EVENTS:
        return ours.keys() == theirs.keys()
    return ours == theirs


_TABLE_EVENTS = (Opened, Wager, Decision, Locked, Settled)
#: Whether every struct holds exactly its event's fields. A field added to an event (another part
#: of the rules) turns this reader off until it learns the field.
SHAPES_MATCH = all(_same_shape(s, e) for s, e, _ in _PLAN)

#: The reader: a record's struct, or `msgspec.DecodeError` for anything it does not vouch for.
read_record: Callable[[bytes], Record] = msgspec.json.Decoder(Record).decode
