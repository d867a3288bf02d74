"""The table-event contract (``schemas/table-event.v1.json`` and ``v2``) as msgspec types.

Each event kind is a `msgspec.Struct`, a tagged union on ``type`` with unknown fields forbidden,
and the schema's lengths, ranges, enums and most patterns written as `Meta`, so that decoding a
line checks most of the contract in C. `streams.door.fast_decode` adds what `Meta` cannot say (and
the patterns of `PATTERNS_AFTER_DECODE`, cheaper there) and steps aside for anything it cannot
vouch for; ``tests/streams/door/test_fast_decode.py`` checks each struct against the schema's
fields, required ones and constraints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Final, Literal

from msgspec import UNSET, Meta, Struct, UnsetType, field

from streams.door.struct_cents import cents, decision_cents, wager_cents

# Patterns end in \Z, not $: ECMA-262 `$` is the end of the string; Python's `$` also matches before
# a final "\n" (streams.door.validation makes the same substitution).

#: Every string the card pattern ``^([2-9TJQKA]|10)[cdhsCDHS]$`` matches (112 of them), and every
#: one the wager target pattern ``^(own|dealer|seat:([1-9]|1[0-2]))$`` matches: msgspec checks a
#: `Literal` with a hash lookup, about 15 times faster than running the pattern on each card.
CARD_TEXTS: Final = tuple(rank + suit for rank in (*"23456789TJQKA", "10") for suit in "cdhsCDHS")
TARGET_TEXTS: Final = ("own", "dealer", *(f"seat:{seat}" for seat in range(1, 13)))
if TYPE_CHECKING:  # the Literals are built from the tuples above, which mypy cannot read
    Card = str
    WagerTarget = str
else:
    Card = Literal[CARD_TEXTS]
    WagerTarget = Literal[TARGET_TEXTS]

# The patterns of the fields that repeat from event to event (a table's id, a round's, a wager's
# name and amount) and of the event id are checked after decoding (`PATTERNS_AFTER_DECODE`), not
# by msgspec: running a pattern costs ~0.35 us a field, most of a decode, while a text already
# seen is one set lookup, and an event id's pattern is what three string methods say.
EVENT_ID_PATTERN: Final = r"^[!-~]{1,128}\Z"
IDENT_PATTERN: Final = r"^[A-Za-z0-9._-]{1,64}\Z"
AMOUNT_PATTERN: Final = r"^(0\.(0[1-9]|[1-9][0-9])|[1-9][0-9]{0,8}\.[0-9]{2})\Z"
WAGER_NAME_PATTERN: Final = r"^[a-z][a-z0-9_]{0,39}\Z"
OCCURRED_AT_PATTERN: Final = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})\Z"
)
#: Each field whose pattern `streams.door.fast_decode` checks after decoding, with the pattern.
PATTERNS_AFTER_DECODE: Final = {
    "event_id": EVENT_ID_PATTERN,
    "table_id": IDENT_PATTERN,
    "round_id": IDENT_PATTERN,
    "amount": AMOUNT_PATTERN,
    "wager": WAGER_NAME_PATTERN,
    "occurred_at": OCCURRED_AT_PATTERN,
}
EventId = Annotated[str, Meta(min_length=1, max_length=128)]
Ident = Annotated[str, Meta(min_length=1, max_length=64)]
Seq = Annotated[int, Meta(ge=0, le=9_007_199_254_740_991)]  # seq: 0 to 2^53-1
OccurredAt = Annotated[str, Meta(max_length=40)]  # its pattern: `PATTERNS_AFTER_DECODE`
#: "own", as a string object of its own: the default of a wager's ``on``. msgspec gives a decoded
#: ``"own"`` as the `Literal`'s own string, never this object, so ``wager.on is OWN_UNSAID`` tells
#: a line that leaves ``on`` out (its strings are counted, and the schema's dict lacks it) from one
#: that says ``"own"``, while both read as "own".
OWN_UNSAID: Final = "".join(("o", "wn"))
SchemaVersion = Literal[1, 2]  # version 2 allows every version 1 kind with "schema_version": 2
Seat = Annotated[int, Meta(ge=1, le=12)]
SeatKey = Literal["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]
Amount = Annotated[str, Meta(max_length=12)]
Hand = Annotated[list[Card], Meta(min_length=1, max_length=7)]  # uniqueItems: checked after
WagerName = Annotated[str, Meta(max_length=40)]
RandomSeat = Literal["dealer", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"] | Seat
Game = Literal["three_card_poker", "lunar_poker", "three_card_prime", "four_card_prime"]
Action = Literal["play", "fold", "raise", "bet", "buy_sixth_card", "draw"]
Reason = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=500,
        pattern=r"^[^\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]*\Z",
    ),
]


class CommonFields(
    Struct, kw_only=True, forbid_unknown_fields=True, tag_field="type", gc=False, frozen=True
):
    """What every event carries. ``gc=False``: a struct holds only texts, numbers and lists or
    dicts of texts, so it can never be part of a reference cycle; the collector need not track
    the ~20,000 a second a floor sends (nor walk those a session keeps in its rounds).
    ``frozen``: a struct the session accepted is kept in its round and emitted as the event,
    as immutable as the frozen event it stands for."""

    event_id: EventId
    table_id: Ident
    occurred_at: OccurredAt


class HeartbeatStruct(CommonFields, kw_only=True, frozen=True, tag="heartbeat"):
    schema_version: Literal[2]


class RoundHead(CommonFields, kw_only=True, frozen=True):
    round_id: Ident
    seq: Seq
    schema_version: SchemaVersion | UnsetType = UNSET


class RoundOpenedStruct(RoundHead, kw_only=True, frozen=True, tag="round_opened"):
    game: Game


class WagerPlacedStruct(RoundHead, kw_only=True, frozen=True, tag="wager_placed"):
    """Also a `controller.fast.shapes.WagerLike`: the session decides on it as it stands."""

    seat: Seat
    wager: WagerName
    amount: Amount
    #: The wager's target; when the line names none, `OWN_UNSAID` ("own", `from_contract`'s
    #: default): a plain attribute, as the session reads it several times a wager.
    on: WagerTarget = OWN_UNSAID

    if TYPE_CHECKING:

        @property
        def amount_cents(self) -> int:
            """The amount in cents."""
            return cents(self.amount)

    else:  # compiled (`streams.door.struct_cents`): a builtin, not a Python frame, a read
        amount_cents = property(wager_cents, doc="The amount in cents.")


class WagersLockedStruct(RoundHead, kw_only=True, frozen=True, tag="wagers_locked"):
    pass


class DecisionStruct(RoundHead, kw_only=True, frozen=True, tag="decision"):
    """Also a `controller.fast.shapes.DecisionLike`: the session decides on it as it stands."""

    seat: Seat
    action: Action
    amount: Amount | UnsetType = UNSET
    discarded: Annotated[list[Card], Meta(max_length=5)] | UnsetType = field(
        default=UNSET, name="discards"
    )

    if TYPE_CHECKING:

        @property
        def amount_cents(self) -> int | None:
            """The amount in cents, None when the line names none."""
            return decision_cents(self)

    else:  # compiled, as `WagerPlacedStruct.amount_cents`
        amount_cents = property(decision_cents, doc="The amount in cents, None if unnamed.")

    @property
    def discards(self) -> tuple[str, ...]:
        """The discarded cards, none when the line names none (`from_contract`'s default)."""
        discarded = self.discarded
        return () if discarded is UNSET else tuple(discarded)


class RoundSettledStruct(RoundHead, kw_only=True, frozen=True, tag="round_settled"):
    dealer: Annotated[list[Card], Meta(max_length=7)]
    community: Annotated[list[Card], Meta(max_length=2)]
    seats: Annotated[dict[SeatKey, Hand], Meta(max_length=12)]
    random_seat: RandomSeat | UnsetType = UNSET
    magic_card: Card | UnsetType = UNSET
    bonus_card: Card | UnsetType = UNSET


class RoundVoidedStruct(RoundHead, kw_only=True, frozen=True, tag="round_voided"):
    reason: Reason


RoundStruct = (
    RoundOpenedStruct
    | WagerPlacedStruct
    | WagersLockedStruct
    | DecisionStruct
    | RoundSettledStruct
    | RoundVoidedStruct
)
EventStruct = RoundStruct | HeartbeatStruct
#: Each kind's struct by its ``type`` tag.
STRUCT_BY_TYPE: Final[dict[str, type[EventStruct]]] = {
    str(cls.__struct_config__.tag): cls
    for cls in (
        RoundOpenedStruct,
        WagerPlacedStruct,
        WagersLockedStruct,
        DecisionStruct,
        RoundSettledStruct,
        RoundVoidedStruct,
        HeartbeatStruct,
    )
}
