"""Builders for rule-test scenarios (`tests.controller.scenario`): table events and operator
commands with the bookkeeping left blank for the scenario to fill, and amount helpers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from controller.model.commands import (
    ActivateConfig,
    CorrectMeter,
    OperatorCommand,
    PayHit,
    ValidateHit,
)
from controller.model.money import SUBUNITS_PER_CENT, parse_cents
from controller.model.state import FloorState
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)

PA = (Path(__file__).resolve().parents[2] / "examples" / "pa-three-card-poker.toml").read_text()
"""The example floor: tcp-1..6 at $1 on (e) A, (h), (i), (j); tcp-7, tcp-8 at $5 on (e) A."""

BLANK = ""
BLANK_SEQ = -1
Command = TableEvent | OperatorCommand
Cards = str | Sequence[str]
E = TypeVar("E", bound=TableEvent)


def cards(text: Cards) -> tuple[str, ...]:
    """ "As Ks Qs" or ["As", "Ks", "Qs"] as a tuple of card texts."""
    return tuple(text.split()) if isinstance(text, str) else tuple(text)


def dollars(text: str) -> int:
    """ "10000.63" as cents (a test's hand-worked amount)."""
    return parse_cents(text)


def sub(text: str) -> int:
    """ "10000.63" as meter sub-units."""
    return parse_cents(text) * SUBUNITS_PER_CENT


# --- table event builders ------------------------------------------------------------------------


def opened(table: str, round_id: str, game: str = "three_card_poker") -> RoundOpened:
    """A round opens; later builders default to this table and round."""
    return RoundOpened(
        event_id=BLANK,
        table_id=table,
        round_id=round_id,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        game=game,
    )


def wager(seat: int, kind: str, amount: str, on: str = "own") -> WagerPlaced:
    """A wager of ``amount`` dollars ("1.00") by ``seat`` on its own hand, "dealer" or "seat:N"."""
    return WagerPlaced(
        event_id=BLANK,
        table_id=BLANK,
        round_id=BLANK,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        seat=seat,
        wager=kind,
        amount_cents=parse_cents(amount),
        on=on,
    )


def locked() -> WagersLocked:
    """No more wagers: contributions are recognised."""
    return WagersLocked(
        event_id=BLANK, table_id=BLANK, round_id=BLANK, seq=BLANK_SEQ, occurred_at=BLANK
    )


def decision(seat: int, action: str, amount: str | None = None) -> DecisionMade:
    """Any decision; `fold` and `play` are the usual ones."""
    return DecisionMade(
        event_id=BLANK,
        table_id=BLANK,
        round_id=BLANK,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        seat=seat,
        action=action,
        amount_cents=None if amount is None else parse_cents(amount),
    )


def fold(seat: int) -> DecisionMade:
    """The player folds (649a.11(b))."""
    return decision(seat, "fold")


def play(seat: int, amount: str) -> DecisionMade:
    """The player makes a Play Wager equal to the Ante (649a.11(b))."""
    return decision(seat, "play", amount)


def settled(
    *,
    dealer: Cards,
    seats: Mapping[int, Cards],
    community: Cards = (),
    random_seat: str | None = None,
    magic_card: str | None = None,
) -> RoundSettled:
    """The cards at settlement; seats in seat order."""
    return RoundSettled(
        event_id=BLANK,
        table_id=BLANK,
        round_id=BLANK,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        dealer=cards(dealer),
        community=cards(community),
        seats=tuple(sorted((seat, cards(hand)) for seat, hand in seats.items())),
        random_seat=random_seat,
        magic_card=magic_card,
    )


def voided(reason: str = "misdeal") -> RoundVoided:
    """The round is void."""
    return RoundVoided(
        event_id=BLANK,
        table_id=BLANK,
        round_id=BLANK,
        seq=BLANK_SEQ,
        occurred_at=BLANK,
        reason=reason,
    )


def locked_round(table: str, round_id: str, *wagers: WagerPlaced) -> tuple[TableEvent, ...]:
    """A round opened at ``table``, these wagers placed, wagers locked."""
    return (opened(table, round_id), *wagers, locked())


def with_policy(config_text: str, key: str, value: str) -> str:
    """The configuration with one ``[policy]`` key set (envy_holders, dealer_hand_turn)."""
    lines = [
        f'{key} = "{value}"' if line.startswith(f"{key} =") else line
        for line in config_text.splitlines()
    ]
    assert lines != config_text.splitlines(), f"no policy key {key!r} in the configuration"
    return "\n".join(lines) + "\n"


def at(
    event: E,
    *,
    table: str | None = None,
    round_id: str | None = None,
    seq: int | None = None,
    event_id: str | None = None,
) -> E:
    """``event`` with explicit bookkeeping; the scenario keeps what is set here."""
    return replace(
        event,
        table_id=event.table_id if table is None else table,
        round_id=event.round_id if round_id is None else round_id,
        seq=event.seq if seq is None else seq,
        event_id=event.event_id if event_id is None else event_id,
    )


# --- operator command builders -------------------------------------------------------------------


def activate(text: str, source: str = "floor.toml", by: str = "manager-1") -> ActivateConfig:
    """Bring a floor configuration into force."""
    return ActivateConfig(command_id=BLANK, source=source, text=text, by=by, occurred_at=BLANK)


def validate(hit_id: str, by: str = "floor-1") -> ValidateHit:
    """A floorperson validates a hit (649a.11(c)(5)(iii))."""
    return ValidateHit(command_id=BLANK, hit_id=hit_id, by=by, occurred_at=BLANK)


def pay(hit_id: str, by: str = "cashier-1") -> PayHit:
    """A validated hit is paid (649a.11(c)(5)(iv))."""
    return PayHit(command_id=BLANK, hit_id=hit_id, by=by, occurred_at=BLANK)


def correct(
    meter_id: str,
    amount_delta_sub: int = 0,
    reserve_delta_sub: int = 0,
    *,
    by: str = "manager-1",
    reason: str = "audit adjustment",
    second_by: str = "manager-2",
) -> CorrectMeter:
    """An authorised correction of a meter, in sub-units; co-signed by ``second_by`` (dual
    control, needed above the floor's correction_cap)."""
    return CorrectMeter(
        command_id=BLANK,
        meter_id=meter_id,
        amount_delta_sub=amount_delta_sub,
        reserve_delta_sub=reserve_delta_sub,
        by=by,
        reason=reason,
        occurred_at=BLANK,
        second_by=second_by,
    )


def resolve_hit(state: FloorState, short_id: str) -> str:
    """The newest hit named "table/round/wager/seatN" (or ".../dealer").

    A hit id also carries the settlement's seq ("tcp-1/r1/9/progressive/seat1") so it stays
    unique if a device reuses a round id; tests name hits without it. A full id is kept as is.
    """
    if short_id in state.hits or short_id.count("/") != 3:
        return short_id
    table, round_id, wager, label = short_id.split("/")
    matches = [
        hit_id
        for hit_id in state.hits
        if (parts := hit_id.split("/"))[:2] == [table, round_id] and parts[3:] == [wager, label]
    ]
    return max(matches, key=lambda h: int(h.split("/")[2]), default=short_id)
