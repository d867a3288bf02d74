"""58 Pa. Code 649a.12(j): the 5 of 6 Progressive Payout Wager (player's three + dealer's three).

Worked by hand: seed/reseed $10,000 for 1, primary 28% ($0.28 per $1 wager); royal flush of spades
100% of the meter, royal flush of clubs, diamonds or hearts 25% of the meter, straight flush 250 for
1, four-of-a-kind 100, full house 20, flush 10, straight 5.
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

METER = "tcp-five-of-six"
KIND = "five_of_six_progressive"


def seat4(hand: str, dealer: str) -> Outcome:
    """Seat 4 alone wagers the 5 of 6 and is dealt ``hand`` against ``dealer``."""
    return (
        given()
        .events(*locked_round("tcp-1", "r1", wager(4, KIND, "1.00")))
        .when(settled(dealer=dealer, seats={4: hand}))
    )


def test_two_wagers_grow_the_meter_by_28_cents_each() -> None:
    # 649a.12(j)(3): $10,000 + 2 x 28% of $1 = $10,000.56.
    wagers = (wager(seat, KIND, "1.00") for seat in (1, 2))
    given().when(*locked_round("tcp-1", "r1", *wagers)).then(meter_is(METER, "10000.56"))


def test_royal_flush_of_spades_pays_the_whole_meter_and_reseeds() -> None:
    # 649a.12(j)(1), (3): As Ks Qs + the dealer's Js Ts -> 100% of $10,000.28; reseed $10,000.
    seat4("As Ks Qs", "Js Ts 4d").then(
        pays(hit(4, "10000.28", hand="royal_flush_of_spades")), meter_is(METER, "10000.00")
    )


@pytest.mark.parametrize(("hand", "dealer"), [("Ah Kh Qh", "Jh Th 4d"), ("Jd 4c Ad", "Kd Td Qd")])
def test_another_royal_pays_a_quarter_of_the_meter(hand: str, dealer: str) -> None:
    # 649a.12(j)(1): 25% of $10,000.28 = $2,500.07; the meter keeps $7,500.21 (no reseed).
    seat4(hand, dealer).then(
        pays(hit(4, "2500.07", hand="royal_flush")), meter_is(METER, "7500.21")
    )


@pytest.mark.parametrize(
    ("hand", "dealer", "name", "amount"),
    [
        ("9s 8s 2d", "7s 6s 5s", "straight_flush", "250.00"),
        ("9s 9d 2d", "9h 9c 5s", "four_of_a_kind", "100.00"),
        ("Ks Kd 2d", "Kh 7c 7s", "full_house", "20.00"),
        ("Kd 9d 2c", "Jd 6d 4d", "flush", "10.00"),
        ("Jc Ts 2d", "9h 8s 7d", "straight", "5.00"),
    ],
)
def test_fixed_lines_from_the_best_five_of_six(
    hand: str, dealer: str, name: str, amount: str
) -> None:
    # 649a.12(j)(1), 649a.11(c)(9): the best five of the player's three and the dealer's three.
    seat4(hand, dealer).then(pays(fixed(4, amount, hand=name)), meter_is(METER, "10000.28"))


def test_three_of_a_kind_pays_nothing() -> None:
    # 649a.12(j)(1) lists nothing below a straight.
    seat4("Qs Qd 2c", "Qh 7c 4s").then(pays_nothing())


def test_only_the_highest_hand_is_paid() -> None:
    # 649a.12(j)(2): Ah Kh Qh + Jh Th 9h holds a royal, a straight flush and a flush: only the
    # royal (25%) is paid.
    seat4("Ah Kh Qh", "Jh Th 9h").then(pays(hit(4, "2500.07")))
