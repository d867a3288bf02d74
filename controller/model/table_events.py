"""Table events: what bet sensors, shoes and dealer consoles report (schemas/table-event.v1.json).

To the controller a table event is a request (it may be refused), and once accepted it is a recorded
fact in the log, so one set of frozen dataclasses serves both. Cards stay as their text ("As") so an
event is plain data that prints and serialises the same everywhere; they are parsed when hands are
evaluated. `from_contract` turns a schema-valid dict into an event; `to_contract` gives it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypedDict

from controller.model.errors import InvalidEvent
from controller.model.money import format_cents, parse_cents


@dataclass(frozen=True, slots=True, kw_only=True)
class TableEventBase:
    """Fields every table event carries; ``event_id`` is the idempotency key."""

    event_id: str
    table_id: str
    round_id: str
    seq: int
    occurred_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundOpened(TableEventBase):
    """A new round of ``game`` started at the table."""

    TYPE: ClassVar[str] = "round_opened"
    game: str


@dataclass(frozen=True, slots=True, kw_only=True)
class WagerPlaced(TableEventBase):
    """A wager on a seat; ``on`` is "own", "dealer" (649a.12(i)(2)) or "seat:N" (671a.11(c))."""

    TYPE: ClassVar[str] = "wager_placed"
    seat: int
    wager: str
    amount_cents: int
    on: str = "own"


@dataclass(frozen=True, slots=True, kw_only=True)
class WagersLocked(TableEventBase):
    """No more wagers; progressive contributions are recognised here."""

    TYPE: ClassVar[str] = "wagers_locked"


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionMade(TableEventBase):
    """A player's decision: play, fold, raise, bet, buy_sixth_card or draw."""

    TYPE: ClassVar[str] = "decision"
    seat: int
    action: str
    amount_cents: int | None = None
    discards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundSettled(TableEventBase):
    """The cards at settlement; ``seats`` pairs each seat with its final cards."""

    TYPE: ClassVar[str] = "round_settled"
    dealer: tuple[str, ...]
    community: tuple[str, ...]
    seats: tuple[tuple[int, tuple[str, ...]], ...]
    random_seat: str | None = None
    magic_card: str | None = None
    bonus_card: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundVoided(TableEventBase):
    """The round is void (misdeal...): its contributions are reversed, nothing is paid."""

    TYPE: ClassVar[str] = "round_voided"
    reason: str


TableEvent = RoundOpened | WagerPlaced | WagersLocked | DecisionMade | RoundSettled | RoundVoided
TABLE_EVENT_TYPES: dict[str, type[TableEvent]] = {
    cls.TYPE: cls
    for cls in (RoundOpened, WagerPlaced, WagersLocked, DecisionMade, RoundSettled, RoundVoided)
}


class _Head(TypedDict):
    event_id: str
    table_id: str
    round_id: str
    seq: int
    occurred_at: str


def _str(raw: dict[str, object], key: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str):
        msg = f"{raw.get('type', 'event')}.{key}: expected a string, got {value!r}"
        raise InvalidEvent(msg)
    return value


def _int(raw: dict[str, object], key: str) -> int:
    value = raw.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        msg = f"{raw.get('type', 'event')}.{key}: expected a whole number, got {value!r}"
        raise InvalidEvent(msg)
    return value


def _cards(raw: dict[str, object], key: str) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        msg = f'{raw.get("type")}.{key}: expected a list of cards like ["As", "Td"]'
        raise InvalidEvent(msg)
    return tuple(str(c) for c in value)


def _seat_cards(raw: dict[str, object]) -> tuple[tuple[int, tuple[str, ...]], ...]:
    seats = raw.get("seats")
    if not isinstance(seats, dict):
        msg = 'round_settled.seats: expected an object like {"1": ["As", "Kd", "Qh"]}'
        raise InvalidEvent(msg)
    pairs = []
    for key in seats:
        if not str(key).isdigit():
            msg = f"round_settled.seats: {key!r} is not a seat number"
            raise InvalidEvent(msg)
        pairs.append((int(key), _cards(seats, key)))
    return tuple(sorted(pairs))


def from_contract(raw: dict[str, object]) -> TableEvent:
    """A table event from its contract dict (already schema-checked at the edge, re-checked
    here)."""
    kind = raw.get("type")
    if kind not in TABLE_EVENT_TYPES:
        msg = f"type: {kind!r} is not a table event type ({', '.join(TABLE_EVENT_TYPES)})"
        raise InvalidEvent(msg)
    head = _Head(
        event_id=_str(raw, "event_id"),
        table_id=_str(raw, "table_id"),
        round_id=_str(raw, "round_id"),
        seq=_int(raw, "seq"),
        occurred_at=_str(raw, "occurred_at"),
    )
    match kind:
        case "round_opened":
            return RoundOpened(**head, game=_str(raw, "game"))
        case "wager_placed":
            return WagerPlaced(
                **head,
                seat=_int(raw, "seat"),
                wager=_str(raw, "wager"),
                amount_cents=parse_cents(_str(raw, "amount")),
                on=str(raw.get("on", "own")),
            )
        case "wagers_locked":
            return WagersLocked(**head)
        case "decision":
            return _decision(raw, head)
        case "round_settled":
            return _settled(raw, head)
        case _:
            return RoundVoided(**head, reason=_str(raw, "reason"))


def _decision(raw: dict[str, object], head: _Head) -> DecisionMade:
    amount = raw.get("amount")
    return DecisionMade(
        **head,
        seat=_int(raw, "seat"),
        action=_str(raw, "action"),
        amount_cents=None if amount is None else parse_cents(str(amount)),
        discards=_cards(raw, "discards"),
    )


def _settled(raw: dict[str, object], head: _Head) -> RoundSettled:
    random_seat = raw.get("random_seat")
    magic, bonus = raw.get("magic_card"), raw.get("bonus_card")
    return RoundSettled(
        **head,
        dealer=_cards(raw, "dealer"),
        community=_cards(raw, "community"),
        seats=_seat_cards(raw),
        random_seat=None if random_seat is None else str(random_seat),
        magic_card=None if magic is None else str(magic),
        bonus_card=None if bonus is None else str(bonus),
    )


def to_contract(event: TableEvent) -> dict[str, object]:
    """The contract dict of an event (inverse of `from_contract` for valid input)."""
    out: dict[str, object] = {
        "event_id": event.event_id,
        "type": event.TYPE,
        "table_id": event.table_id,
        "round_id": event.round_id,
        "seq": event.seq,
        "occurred_at": event.occurred_at,
    }
    match event:
        case RoundOpened():
            out["game"] = event.game
        case WagerPlaced():
            out.update(seat=event.seat, wager=event.wager, on=event.on)
            out["amount"] = format_cents(event.amount_cents)
        case DecisionMade():
            out.update(seat=event.seat, action=event.action)
            if event.amount_cents is not None:
                out["amount"] = format_cents(event.amount_cents)
            if event.discards:
                out["discards"] = list(event.discards)
        case RoundSettled():
            _settled_contract(event, out)
        case RoundVoided():
            out["reason"] = event.reason
        case WagersLocked():
            pass
    return out


def _settled_contract(event: RoundSettled, out: dict[str, object]) -> None:
    out["dealer"] = list(event.dealer)
    out["community"] = list(event.community)
    out["seats"] = {str(seat): list(cards) for seat, cards in event.seats}
    for key in ("random_seat", "magic_card", "bonus_card"):
        value = getattr(event, key)
        if value is not None:
            out[key] = value
