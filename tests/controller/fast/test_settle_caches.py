"""The fast settlement's memos never answer for another case.

`controller.fast.settle` forms each hand once per round and hand source, finds an Envy table's
qualifying hands once per wager kind, and reads paytables and Envy tables from dicts built once
per meter definition (`MeterFacts`). Each scenario below would pay differently if one of those
answered with what it kept for another source, meter or round; the amounts are worked by hand
from 58 Pa. Code 649a.12, and the fast session must settle every round itself (a fallback to the
reference would hide a wrong memo) and agree with the reference (`tests.controller.scenario`).
"""

from __future__ import annotations

import pytest

from controller.fast import session
from controller.floor import Command, decide
from controller.model.events import Event
from controller.model.state import FloorState
from controller.model.table_events import RoundSettled
from tests.controller.scenario import (
    PA,
    envy,
    fixed,
    given,
    locked_round,
    pays,
    settled,
    wager,
)

#: A second paytable for the (e) wager on tcp-2, with other amounts than paytable A's.
TWO_PAYTABLES = (
    PA
    + """
[progressives.second-e]
name = "Second Three Card Progressive"
rule = "a second (e) paytable, for the test"
hand = "three_card"
seed = 1000
reseed = 1000
primary_rate = "14%"

[progressives.second-e.pays]
ace_king_queen_of_spades = "100% of meter"
ace_king_queen_suited = "200 for 1"
straight = "5 for 1"

[progressives.second-e.envy."1.00"]
ace_king_queen_of_spades = "50.00"
ace_king_queen_suited = "10.00"

[meters.tcp-second]
progressive = "second-e"
"""
).replace(
    '[tables.tcp-2]\ngame = "three_card_poker"\nseats = 7\nwager_unit = "1.00"\n'
    'meters = { progressive = "tcp-progressive",',
    '[tables.tcp-2]\ngame = "three_card_poker"\nseats = 7\nwager_unit = "1.00"\n'
    'meters = { progressive = "tcp-second",',
)


@pytest.fixture(autouse=True)
def fast_settles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if the session hands a settlement to the reference: the fast path must answer. The
    guard is on the reference's `decide` as `Session.reference` calls it (a module global, read
    on each call even when compiled): a compiled class's method patched on the class is not
    what its compiled callers call, so a guard there would pass unseen in the built run."""

    def guarded(state: FloorState, command: Command) -> tuple[Event, ...]:
        assert not isinstance(command, RoundSettled), "the settlement fell back to the reference"
        return decide(state, command)

    monkeypatch.setattr(session, "decide", guarded)


def test_the_same_cards_are_formed_anew_for_each_hand_source() -> None:
    # Seat 1 holds 9h Td Jc, the dealer Qh Kh 2c, the community 9d 9s:
    # (e) three cards: a straight, 6 for 1 -> $6;
    # (h) with the community: three nines, 9 for 1 -> $9 ((i), on the same five, pays no trips);
    # (j) with the dealer's three: 9-T-J-Q-K, a straight, 5 for 1 -> $5.
    # A hand kept for another source would pay (h) 30 for 1 (straight) or (j) nothing (trips).
    kinds = ("progressive", "five_card_progressive", "five_card_hand_bonus")
    wagers = [wager(1, kind, "1.00") for kind in (*kinds, "five_of_six_progressive")]
    given().events(*locked_round("tcp-1", "r1", *wagers)).when(
        settled(dealer="Qh Kh 2c", community="9d 9s", seats={1: "9h Td Jc"})
    ).then(
        pays(
            fixed(1, "6.00", hand="straight"),
            fixed(1, "9.00", hand="three_of_a_kind"),
            fixed(1, "5.00", hand="straight"),
        )
    )


def test_two_meters_pay_the_same_hands_each_by_its_own_tables() -> None:
    # tcp-1 is on paytable A (649a.12(e): A-K-Q suited 500 for 1, straight 6 for 1, Envy $25 for
    # A-K-Q suited on a $1 wager); tcp-2 on the second table (200 for 1, 5 for 1, Envy $10).
    # Seat 2 (A-K-Q of hearts) settles first (649a.11(c): farthest to the dealer's right), then
    # seat 1 (a straight) and its Envy Bonus for seat 2's hand.
    seats = {1: "9h Td Jc", 2: "Ah Kh Qh"}
    wagers = (wager(1, "progressive", "1.00"), wager(2, "progressive", "1.00"))
    floor = given(TWO_PAYTABLES)
    floor.events(*locked_round("tcp-1", "r1", *wagers)).when(
        settled(dealer="2c 5d 8s", seats=seats)
    ).then(
        pays(
            fixed(2, "500.00", hand="ace_king_queen_suited"),
            fixed(1, "6.00", hand="straight"),
            envy(1, "25.00", holder=2, hand="ace_king_queen_suited"),
        )
    )
    floor.events(*locked_round("tcp-2", "r1", *wagers)).when(
        settled(dealer="2c 5d 8s", seats=seats)
    ).then(
        pays(
            fixed(2, "200.00", hand="ace_king_queen_suited"),
            fixed(1, "5.00", hand="straight"),
            envy(1, "10.00", holder=2, hand="ace_king_queen_suited"),
        )
    )
    # The next round at tcp-1: seat 1 now holds nothing; a hand kept from the last round would
    # pay it the straight again.
    floor.events(*locked_round("tcp-1", "r2", *wagers)).when(
        settled(dealer="2c 5d 8s", seats={1: "3h 4c 9s", 2: "Ah Kh Qh"})
    ).then(
        pays(
            fixed(2, "500.00", hand="ace_king_queen_suited"),
            envy(1, "25.00", holder=2, hand="ace_king_queen_suited"),
        )
    )
