"""A replay's hot records read straight into light structs the session applies, never built as
frozen events.

Replaying a log, most records are the table events of a round and the meters' contributions; the
session keeps a wager or a decision in its round only until the next round opens, and reads
nothing else of the rest (`controller.fast.shapes`). msgspec decodes each such record in one
C call into a struct holding exactly the event's fields (same names, same types, same defaults;
`SHAPES_MATCH` checks it when this module loads), checking what `streams.codec.decode` checks:
every required field present and of its declared type, a bool is no int, unknown keys ignored,
an amount of `controller.model.money.parse_cents`'s shape (its value read when used, remembered
per text). A record this reader refuses, for whatever reason, is read by `decode` as before: the
reader only ever accepts records `decode` accepts, with the same values
(``tests/streams/codec/test_records.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Annotated, Any

import msgspec

from controller.fast import apply
from controller.fast.session import Session
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
#: `parse_cents`'s shape (`_AMOUNT`, matched whole) without its one refused value "0.00": checked
#: by msgspec while decoding, so a record with any other amount is refused by this reader.
AMOUNT = r"^(?!0\.00\Z)(?:0|[1-9][0-9]{0,11})\.[0-9]{2}\Z"
Amount = Annotated[str, msgspec.Meta(pattern=AMOUNT)]


def cents(text: str) -> int:
    """`parse_cents` of an amount the reader accepted, remembered per text."""
    value = _CENTS.get(text)
    if value is None:
        value = parse_cents(text)
        if len(_CENTS) < _CENTS_KEPT:
            _CENTS[text] = value
    return value


class _Head(msgspec.Struct, tag_field="type", frozen=True, gc=False):
    event_id: str
    table_id: str
    round_id: str
    seq: int
    occurred_at: str


class Opened(_Head, tag="round_opened", frozen=True, gc=False):
    """A `RoundOpened`."""

    game: str


class Wager(_Head, tag="wager_placed", frozen=True, gc=False):
    """A `WagerPlaced` (its ``amount`` the contract's text; ``amount_cents`` its value)."""

    seat: int
    wager: str
    amount: Amount
    on: str = "own"

    @property
    def amount_cents(self) -> int:
        """The amount in cents."""
        return cents(self.amount)


class Decision(_Head, tag="decision", frozen=True, gc=False):
    """A `DecisionMade` (its ``amount`` the contract's text; ``amount_cents`` its value)."""

    seat: int
    action: str
    amount: Amount | None = None
    discards: tuple[str, ...] = ()

    @property
    def amount_cents(self) -> int | None:
        """The amount in cents, if any."""
        return None if self.amount is None else cents(self.amount)


class Locked(_Head, tag="wagers_locked", frozen=True, gc=False):
    """A `WagersLocked`."""


class Settled(_Head, tag="round_settled", frozen=True, gc=False):
    """A `RoundSettled`: read whole, so a malformed one is refused as `decode` refuses it."""

    seats: dict[str, tuple[str, ...]]
    dealer: tuple[str, ...] = ()
    community: tuple[str, ...] = ()
    random_seat: str | None = None
    magic_card: str | None = None
    bonus_card: str | None = None

    def __post_init__(self) -> None:
        """`_seat_cards` wants seat numbers; anything but ASCII digits is left to `decode`."""
        for key in self.seats:
            if not (key.isdigit() and key.isascii()):
                msg = "not a seat number"
                raise ValueError(msg)


class Contribution(
    msgspec.Struct, tag_field="type", tag="contribution_recorded", frozen=True, gc=False
):
    """A `ContributionRecorded`."""

    meter_id: str
    table_id: str
    round_id: str
    seat: int
    wager: str
    on: str
    wager_cents: int
    primary_sub: int
    reserve_sub: int
    meter_seq: int
    occurred_at: str
    overflow_sub: int = 0
    diverted_sub: int = 0
    divert_to: str = ""


class Fixed(msgspec.Struct, tag_field="type", tag="fixed_awarded", frozen=True, gc=False):
    """A `FixedAwarded`."""

    meter_id: str
    table_id: str
    round_id: str
    seat: int
    wager: str
    on: str
    hand: str
    cards: tuple[str, ...]
    amount_cents: int
    occurred_at: str
    hit_id: str = ""


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
    if issubclass(struct, _Head):
        return ours.keys() == theirs.keys()
    return ours == theirs


#: Whether every struct holds exactly its event's fields. A field added to an event (another part
#: of the rules) turns this reader off until it learns the field.
SHAPES_MATCH = all(_same_shape(s, e) for s, e, _ in _PLAN)

#: The reader: a record's struct, or `msgspec.DecodeError` for anything it does not vouch for.
read_record: Callable[[bytes], Record] = msgspec.json.Decoder(Record).decode
