"""Hypothesis strategies for the controller core.

* cards and hands: re-exported from `tests.strategies_cards` (to be merged here by the lead);
* `deals`: one shuffled deck dealt to the dealer, the community and the seats, sometimes with a
  premium hand planted (A-K-Q of spades, royals, straight flushes) so meters are actually hit;
* `round_plans` / `round_events` / `rounds`: a structurally valid Three Card Poker round at a given
  table: random seats, antes, progressive wagers (own or dealer), plays and folds, cards, a Lucky
  Bonus draw, and an ending (settled, voided while open, voided after the lock);
* `sessions`: rounds of several tables of the example floor, interleaved (each table's own order
  kept), with operator steps (corrections, validating and paying the oldest open hit) between;
* `invalid_variants`: mutations of a valid table event that the rules must refuse in any state.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from hypothesis import strategies as st

from controller.model.cards import FULL_DECK
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)
from tests.controller.scenario import at, fold, locked, opened, play, settled, voided, wager
from tests.strategies_cards import cards, disjoint_hands, hands

__all__ = [
    "ALL_KINDS",
    "FLOOR_TABLES",
    "AdvanceHit",
    "Correction",
    "RoundPlan",
    "SeatPlan",
    "SessionStep",
    "TablePlan",
    "card_texts",
    "cards",
    "deals",
    "disjoint_hands",
    "hands",
    "invalid_variants",
    "round_events",
    "round_plans",
    "rounds",
    "sessions",
]

ALL_KINDS = (
    "progressive",
    "five_card_progressive",
    "five_card_hand_bonus",
    "five_of_six_progressive",
)
DECK = tuple(str(card) for card in FULL_DECK)
Ending = Literal["settle", "void_open", "void_locked"]
Decision = Literal["play", "fold"] | None


@dataclass(frozen=True, slots=True)
class TablePlan:
    """What a table of the example floor offers: its progressive wagers and their unit."""

    table_id: str
    kinds: tuple[str, ...]
    unit: str
    seats: int = 7


FLOOR_TABLES = (
    TablePlan("tcp-1", ALL_KINDS, "1.00"),
    TablePlan("tcp-2", ALL_KINDS, "1.00"),
    TablePlan("tcp-7", ("progressive",), "5.00"),
)
"""Tables of examples/pa-three-card-poker.toml: two $1 tables sharing meters, one $5 table."""

# Premium hands to plant: slot -> cards. "seat" is the first seat of the round.
PLANTS: tuple[Mapping[str, tuple[str, ...]], ...] = (
    {"seat": ("As", "Ks", "Qs")},  # 649a.12(e) 100%
    {"seat": ("Ah", "Kh", "Qh"), "community": ("Jh", "Th")},  # (h), (i) royal
    {"dealer": ("Qd", "Jd", "Td"), "community": ("Ad", "Kd")},  # (i) dealer royal
    {"seat": ("7c", "6c", "5c"), "community": ("9c", "8c")},  # (h), (i) straight flush
    {"seat": ("As", "Ks", "Qs"), "dealer": ("Js", "Ts", "2d")},  # (j) royal of spades
    {"seat": ("Ah", "Kh", "Qh"), "dealer": ("Jh", "Th", "2c")},  # (j) other royal
)


def card_texts() -> st.SearchStrategy[str]:
    """Any one card as text ("As")."""
    return cards.map(str)


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one round."""

    dealer: tuple[str, ...]
    community: tuple[str, ...]
    seats: tuple[tuple[int, tuple[str, ...]], ...]
    undealt: tuple[str, ...]


@st.composite
def deals(draw: st.DrawFn, seats: Sequence[int], planted: bool = True) -> Deal:
    """One deck dealt: three to the dealer, two community cards, three to each seat."""
    plant: Mapping[str, tuple[str, ...]] = {}
    if planted and seats:
        plant = draw(st.sampled_from(({}, {}, *PLANTS)))
    used = {card for group in plant.values() for card in group}
    # One drawn seed shuffles the deck: much cheaper than 52 draws of st.permutations, and the
    # shrinker still minimises the seats, wagers and plants that matter.
    rest = [c for c in DECK if c not in used]
    random.Random(draw(st.integers(0, 2**32 - 1))).shuffle(rest)

    def take(slot: str, count: int) -> tuple[str, ...]:
        fixed = plant.get(slot, ())
        extra = [rest.pop() for _ in range(count - len(fixed))]
        return (*fixed, *extra)

    dealer, community = take("dealer", 3), take("community", 2)
    dealt = [(seat, take("seat" if index == 0 else "", 3)) for index, seat in enumerate(seats)]
    return Deal(dealer, community, tuple(dealt), tuple(rest))


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """One seat's part in a round."""

    seat: int
    ante: bool
    wagers: tuple[tuple[str, str], ...]  # (kind, on)
    decision: Decision


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """A whole round before it is turned into events."""

    seats: tuple[SeatPlan, ...]
    deal: Deal
    unit: str
    ending: Ending
    random_seat: str | None
    magic_card: str | None


def _wager_options(kinds: Sequence[str]) -> list[tuple[str, str]]:
    options = [(kind, "own") for kind in kinds]
    if "five_card_hand_bonus" in kinds:
        options.append(("five_card_hand_bonus", "dealer"))
    return options


@st.composite
def _seat_plan(draw: st.DrawFn, seat: int, kinds: Sequence[str]) -> SeatPlan:
    ante = draw(st.booleans())
    options = _wager_options(kinds)
    wagers = draw(
        st.lists(st.sampled_from(options), unique=True, min_size=0 if ante else 1, max_size=4)
    )
    decisions: tuple[Decision, ...] = ("play", "play", "fold", None)
    decision = draw(st.sampled_from(decisions)) if ante else None
    return SeatPlan(seat, ante, tuple(wagers), decision)


@st.composite
def round_plans(
    draw: st.DrawFn,
    kinds: Sequence[str] = ALL_KINDS,
    unit: str = "1.00",
    seats: int = 7,
) -> RoundPlan:
    """A valid Three Card Poker round: 1..``seats`` seats, each with at least one wager."""
    chosen = sorted(draw(st.lists(st.integers(1, seats), min_size=1, max_size=seats, unique=True)))
    plans = tuple(draw(_seat_plan(seat, kinds)) for seat in chosen)
    deal = draw(deals(draw(st.permutations(chosen))))
    lucky = draw(st.sampled_from((None, "dealer", *(str(s) for s in chosen))))
    magic = draw(st.one_of(st.none(), st.sampled_from(deal.undealt)))
    ending: Ending = draw(
        st.sampled_from(("settle", "settle", "settle", "void_open", "void_locked"))
    )
    return RoundPlan(plans, deal, unit, ending, lucky, magic)


def round_events(
    plan: RoundPlan, table: str, round_id: str, first_seq: int = 1
) -> tuple[TableEvent, ...]:
    """The table events of ``plan``, with consecutive seqs from ``first_seq`` and unique ids."""
    bodies: list[TableEvent] = [opened(table, round_id)]
    for seat in plan.seats:
        if seat.ante:
            bodies.append(wager(seat.seat, "ante", plan.unit))
        bodies += [wager(seat.seat, kind, plan.unit, on=on) for kind, on in seat.wagers]
    if plan.ending == "void_open":
        return _stamp([*bodies, voided("misdeal")], table, round_id, first_seq)
    bodies.append(locked())
    for seat in plan.seats:
        if seat.decision == "play":
            bodies.append(play(seat.seat, plan.unit))
        elif seat.decision == "fold":
            bodies.append(fold(seat.seat))
    if plan.ending == "void_locked":
        bodies.append(voided("shoe fault"))
    else:
        bodies.append(_settlement(plan))
    return _stamp(bodies, table, round_id, first_seq)


def _settlement(plan: RoundPlan) -> TableEvent:
    return settled(
        dealer=plan.deal.dealer,
        community=plan.deal.community,
        seats=dict(plan.deal.seats),
        random_seat=plan.random_seat,
        magic_card=plan.magic_card,
    )


def _stamp(
    bodies: Sequence[TableEvent], table: str, round_id: str, first_seq: int
) -> tuple[TableEvent, ...]:
    return tuple(
        replace(
            at(body, table=table, round_id=round_id, seq=first_seq + index),
            event_id=f"{table}/{round_id}/{index}",
            occurred_at=f"2026-01-01T00:00:{(first_seq + index) % 60:02d}.000Z",
        )
        for index, body in enumerate(bodies)
    )


def rounds(
    table: TablePlan = FLOOR_TABLES[0], round_id: str = "r1", first_seq: int = 1
) -> st.SearchStrategy[tuple[TableEvent, ...]]:
    """The events of one valid round at ``table``."""
    plans = round_plans(table.kinds, table.unit, table.seats)
    return plans.map(lambda plan: round_events(plan, table.table_id, round_id, first_seq))


# --- sessions: several tables interleaved, with operator steps -----------------------------------


@dataclass(frozen=True, slots=True)
class Correction:
    """An authorised correction of ``meter_id`` (it may be refused if it would go negative)."""

    meter_id: str
    amount_delta_sub: int
    reserve_delta_sub: int


@dataclass(frozen=True, slots=True)
class AdvanceHit:
    """Move the oldest unpaid hit one step: validate it, or pay it if already validated."""


SessionStep = TableEvent | Correction | AdvanceHit
METER_IDS = ("tcp-progressive", "tcp-five-card", "tcp-five-card-bonus", "tcp-five-of-six")


@st.composite
def _table_session(draw: st.DrawFn, table: TablePlan, max_rounds: int) -> list[TableEvent]:
    count = draw(st.integers(0, max_rounds))
    events: list[TableEvent] = []
    for number in range(count):
        plan = draw(round_plans(table.kinds, table.unit, table.seats))
        events += round_events(plan, table.table_id, f"r{number}", len(events) + 1)
    return events


def _corrections() -> st.SearchStrategy[Correction]:
    amounts = st.integers(-(10**12), 10**12)
    return st.builds(Correction, st.sampled_from(METER_IDS), amounts, st.integers(-(10**8), 10**8))


@st.composite
def sessions(
    draw: st.DrawFn,
    tables: Sequence[TablePlan] = FLOOR_TABLES,
    max_rounds: int = 3,
    operator_steps: bool = True,
) -> list[SessionStep]:
    """Every table's valid rounds, interleaved, with operator steps slipped in between."""
    queues = {t.table_id: draw(_table_session(t, max_rounds)) for t in tables}
    labels = [table for table, events in queues.items() for _ in events]
    order = draw(st.permutations(labels))
    steps: list[SessionStep] = []
    positions = dict.fromkeys(queues, 0)
    for table in order:
        steps.append(queues[table][positions[table]])
        positions[table] += 1
    if operator_steps:
        extras = draw(st.lists(st.one_of(_corrections(), st.just(AdvanceHit())), max_size=6))
        for extra in extras:
            steps.insert(draw(st.integers(0, len(steps))), extra)
    return steps


# --- invalid variants ----------------------------------------------------------------------------


def invalid_variants(event: TableEvent) -> st.SearchStrategy[TableEvent]:
    """Variants of a valid table event that are refused whatever the table's state."""
    always: list[TableEvent] = [replace(event, table_id="tcp-404"), replace(event, seq=-1)]
    match event:
        case WagerPlaced():
            always += [replace(event, seat=0), replace(event, seat=8)]
            if event.wager != "ante":
                always.append(replace(event, amount_cents=event.amount_cents + 1))
        case RoundSettled():
            always += _bad_settlements(event)
        case DecisionMade():
            always.append(replace(event, action="surrender"))
        case RoundOpened():
            always.append(replace(event, game="lunar_poker"))
        case WagersLocked() | RoundVoided():
            always.append(replace(event, round_id="no-such-round"))
    return st.sampled_from(always)


def _bad_settlements(event: RoundSettled) -> list[TableEvent]:
    seat, hand = event.seats[0]
    twice = ((seat, (event.dealer[0], *hand[1:])), *event.seats[1:])
    short = ((seat, hand[:2]), *event.seats[1:])
    return [
        replace(event, seats=twice),
        replace(event, seats=short),
        replace(event, dealer=event.dealer[:2]),
        replace(event, community=event.community[:1]),
        replace(event, seats=(*event.seats[1:], (99, hand))),
    ]
