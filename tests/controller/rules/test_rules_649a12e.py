"""58 Pa. Code 649a.12(e): the Progressive Payout Wager, paytable A, on the player's three cards.

Worked by hand from the rule text: seed and reseed "$1,000 for 1" (so $1,000.00 on the $1 meter and
$5,000.00 on the $5 meter), primary rate 14% of each wager ($0.14 per $1, $0.70 per $5), A-K-Q of
spades pays 100% of the meter, A-K-Q of another suit 500 for 1, straight flush 70 for 1,
three-of-a-kind 60 for 1, straight 6 for 1 ("for 1" includes the wager).
"""

from __future__ import annotations

import pytest

from tests.controller.scenario import (
    Outcome,
    fixed,
    given,
    hit,
    locked_round,
    meter_is,
    pays,
    pays_nothing,
    settled,
    wager,
)

LOW_DEALER = "2c 4d 7h"  # queen-high or worse, and none of the players' cards below


def one_hand(hand: str, *, table: str = "tcp-1", amount: str = "1.00") -> Outcome:
    """Seat 3 alone wagers the progressive and is dealt ``hand``."""
    return (
        given()
        .events(*locked_round(table, "r1", wager(3, "progressive", amount)))
        .when(settled(dealer=LOW_DEALER, seats={3: hand}))
    )


def test_meters_open_at_the_seed_of_1000_for_1() -> None:
    # 649a.12(e)(3): seed $1,000 for 1 -> $1,000.00 on the $1 meter, $5,000.00 on the $5 meter.
    given().when().then(
        meter_is("tcp-progressive", "1000.00"), meter_is("tcp-progressive-5", "5000.00")
    )


def test_each_one_dollar_wager_adds_14_percent() -> None:
    # 649a.12(e)(3) paytable A, primary 14%: three $1 wagers -> $1,000 + 3 x $0.14 = $1,000.42.
    wagers = (wager(seat, "progressive", "1.00") for seat in (1, 2, 3))
    given().when(*locked_round("tcp-1", "r1", *wagers)).then(meter_is("tcp-progressive", "1000.42"))


def test_each_five_dollar_wager_adds_14_percent_of_five() -> None:
    # 649a.12(e)(3): 14% of $5 is $0.70; two wagers -> $5,000 + $1.40 = $5,001.40.
    wagers = (wager(seat, "progressive", "5.00") for seat in (1, 2))
    given().when(*locked_round("tcp-7", "r1", *wagers)).then(
        meter_is("tcp-progressive-5", "5001.40"), meter_is("tcp-progressive", "1000.00")
    )


def test_ace_king_queen_of_spades_pays_the_whole_meter_and_reseeds() -> None:
    # 649a.12(e)(1), (3): 100% of $1,000.14, then the meter reseeds at $1,000 for 1.
    one_hand("As Ks Qs").then(
        pays(hit(3, "1000.14", hand="ace_king_queen_of_spades")),
        meter_is("tcp-progressive", "1000.00"),
    )


def test_five_dollar_ace_king_queen_of_spades_pays_its_own_meter() -> None:
    # 649a.12(e)(1), (3): the $5 meter holds $5,000.70 after one wager; it reseeds at $5,000.
    one_hand("Qs As Ks", table="tcp-7", amount="5.00").then(
        pays(hit(3, "5000.70", meter="tcp-progressive-5")),
        meter_is("tcp-progressive-5", "5000.00"),
        meter_is("tcp-progressive", "1000.00"),
    )


@pytest.mark.parametrize(
    ("hand", "name", "amount"),
    [
        ("Ah Kh Qh", "ace_king_queen_suited", "500.00"),  # 500 for 1
        ("Kd Ad Qd", "ace_king_queen_suited", "500.00"),
        ("Ac Kc Qc", "ace_king_queen_suited", "500.00"),
        ("9d 8d Td", "straight_flush", "70.00"),  # 70 for 1, not also the straight (e)(2)
        ("3s 2s As", "straight_flush", "70.00"),  # A-2-3 suited is a straight flush
        ("Jh Jc Js", "three_of_a_kind", "60.00"),  # 60 for 1
        ("6h 5s 4c", "straight", "6.00"),  # 6 for 1
        ("Ah 2d 3c", "straight", "6.00"),  # A-2-3 is a straight (649a.6)
        ("Ad Kc Qh", "straight", "6.00"),
    ],
)
def test_fixed_lines_of_paytable_a(hand: str, name: str, amount: str) -> None:
    # 649a.12(e)(1) paytable A; fixed awards are not taken from the meter.
    one_hand(hand).then(pays(fixed(3, amount, hand=name)), meter_is("tcp-progressive", "1000.14"))


def test_five_dollar_ace_king_queen_suited_pays_500_for_1() -> None:
    # 649a.12(e)(1): 500 for 1 on a $5 wager is $2,500.
    one_hand("Ah Kh Qh", table="tcp-8", amount="5.00").then(
        pays(fixed(3, "2500.00")), meter_is("tcp-progressive-5", "5000.70")
    )


@pytest.mark.parametrize(
    "hand",
    [
        "Kh 9h 2h",  # flush: not in paytable A
        "Ah As Kd",  # pair
        "Ah Jd 9c",  # high card
        "Kh Ad 2s",  # K-A-2 does not wrap round
    ],
)
def test_hands_below_the_paytable_pay_nothing(hand: str) -> None:
    # 649a.12(e)(1) paytable A lists no flush and no pair.
    one_hand(hand).then(pays_nothing(), meter_is("tcp-progressive", "1000.14"))


def test_paid_whether_or_not_the_hand_beats_the_dealer() -> None:
    # 649a.11(c)(5): paid irrespective of whether the player's hand outranks the dealer's.
    given().events(*locked_round("tcp-1", "r1", wager(3, "progressive", "1.00"))).when(
        settled(dealer="Kc Ks Kd", seats={3: "6h 5s 4c"})
    ).then(pays(fixed(3, "6.00", hand="straight")))


def test_the_dealer_hand_wins_no_progressive() -> None:
    # 649a.12(e)(1): the wager is on the player's hand; the dealer's A-K-Q of spades pays nobody.
    given().events(*locked_round("tcp-1", "r1", wager(3, "progressive", "1.00"))).when(
        settled(dealer="As Ks Qs", seats={3: "2c 4d 7h"})
    ).then(pays_nothing(), meter_is("tcp-progressive", "1000.14"))
