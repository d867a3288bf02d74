"""The table-event contract (``schemas/table-event.v1.json`` and ``v2``) as msgspec types.

Each event kind is a `msgspec.Struct`, a tagged union on ``type`` with unknown fields forbidden,
and the schema's lengths, ranges, enums and patterns written as `Meta`, so that decoding a line
checks most of the contract in C. `streams.door.fast_decode` adds what `Meta` cannot say and steps
aside for anything it cannot vouch for; ``tests/streams/door/test_fast_decode.py`` checks each
struct
against the schema's fields, required ones and constraints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Final, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

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

EventId = Annotated[str, Meta(min_length=1, max_length=128, pattern=r"^[!-~]{1,128}\Z")]
Ident = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._-]{1,64}\Z")]
Seq = Annotated[int, Meta(ge=0, le=9_007_199_254_740_991)]  # seq: 0 to 2^53-1
OccurredAt = Annotated[
    str,
    Meta(
        max_length=40,
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?"
        r"(Z|[+-][0-9]{2}:[0-9]{2})\Z",
    ),
]
SchemaVersion = Literal[1, 2]  # version 2 allows every version 1 kind with "schema_version": 2
Seat = Annotated[int, Meta(ge=1, le=12)]
SeatKey = Literal["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]
Amount = Annotated[
    str, Meta(max_length=12, pattern=r"^(0\.(0[1-9]|[1-9][0-9])|[1-9][0-9]{0,8}\.[0-9]{2})\Z")
]
Hand = Annotated[list[Card], Meta(min_length=1, max_length=7)]  # uniqueItems: checked after
WagerName = Annotated[str, Meta(max_length=40, pattern=r"^[a-z][a-z0-9_]{0,39}\Z")]
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


class CommonFields(Struct, kw_only=True, forbid_unknown_fields=True, tag_field="type"):
    event_id: EventId
    table_id: Ident
    occurred_at: OccurredAt


class HeartbeatStruct(CommonFields, kw_only=True, tag="heartbeat"):
    schema_version: Literal[2]


class RoundHead(CommonFields, kw_only=True):
    round_id: Ident
    seq: Seq
    schema_version: SchemaVersion | UnsetType = UNSET


class RoundOpenedStruct(RoundHead, kw_only=True, tag="round_opened"):
    game: Game


class WagerPlacedStruct(RoundHead, kw_only=True, tag="wager_placed"):
    seat: Seat
    wager: WagerName
    amount: Amount
    on: WagerTarget | UnsetType = UNSET


class WagersLockedStruct(RoundHead, kw_only=True, tag="wagers_locked"):
    pass


class DecisionStruct(RoundHead, kw_only=True, tag="decision"):
    seat: Seat
    action: Action
    amount: Amount | UnsetType = UNSET
    discards: Annotated[list[Card], Meta(max_length=5)] | UnsetType = UNSET


class RoundSettledStruct(RoundHead, kw_only=True, tag="round_settled"):
    dealer: Annotated[list[Card], Meta(max_length=7)]
    community: Annotated[list[Card], Meta(max_length=2)]
    seats: Annotated[dict[SeatKey, Hand], Meta(max_length=12)]
    random_seat: RandomSeat | UnsetType = UNSET
    magic_card: Card | UnsetType = UNSET
    bonus_card: Card | UnsetType = UNSET


class RoundVoidedStruct(RoundHead, kw_only=True, tag="round_voided"):
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
