"""58 Pa. Code 649a.12(h): the Five-Card Progressive Payout Wager (player's three + two community).

Worked by hand: seed/reseed $10,000 for 1, primary 21% ($0.21 per $1 wager); royal flush 100% of
the meter, straight flush 10% of the meter (rounded down to the cent, the rest stays on the meter),
four-of-a-kind 300 for 1, full house 50, flush 40, straight 30, three-of-a-kind 9.
"""

from __future__ import annotations

import pytest

from tests.controller.scenario import (
    Outcome,
    envy,
    fixed,
    given,
    hit,
    locked_round,
    meter_is,
    meter_sub_is,
    pays,
    pays_nothing,
    settled,
    wager,
)

METER = "tcp-five-card"
DEALER = "Tc 8d 6s"


def hands(seat_cards: dict[int, str], community: str, wagering: tuple[int, ...]) -> Outcome:
    """``wagering`` seats place the Five-Card Progressive; every seat is dealt its cards."""
    wagers = (wager(seat, "five_card_progressive", "1.00") for seat in wagering)
    return (
        given()
        .events(*locked_round("tcp-1", "r1", *wagers))
        .when(settled(dealer=DEALER, community=community, seats=seat_cards))
    )


def test_three_wagers_grow_the_meter_by_21_cents_each() -> None:
    # 649a.12(h)(3): $10,000 + 3 x 21% of $1 = $10,000.63.
    wagers = (wager(seat, "five_card_progressive", "1.00") for seat in (1, 2, 3))
    given().when(*locked_round("tcp-1", "r1", *wagers)).then(meter_is(METER, "10000.63"))


def test_royal_flush_pays_the_whole_meter_and_reseeds() -> None:
    # 649a.12(h)(1)-(3): 100% of $10,000.21; reseed $10,000; only the royal is paid ((h)(2)).
    hands({5: "Ah Kh Qh"}, "Jh Th", (5,)).then(
        pays(hit(5, "10000.21", hand="royal_flush")), meter_is(METER, "10000.00")
    )


def test_straight_flush_pays_ten_percent_rounded_down() -> None:
    # 649a.12(h)(1): 10% of $10,000.63 is $1,000.063 -> $1,000.06 paid; the meter keeps
    # $10,000.63 - $1,000.06 = $9,000.57 exactly (the 0.3 cent rest stays on it).
    seats = {1: "2s 2d 5c", 2: "Kc Qd 3s", 3: "7h 6h 5h"}
    hands(seats, "9h 8h", (1, 2, 3)).then(
        # 649a.12(h)(5): the other wagering seats each get the $300 Five-Card Envy Bonus.
        pays(hit(3, "1000.06", hand="straight_flush"), envy(2, "300.00"), envy(1, "300.00")),
        meter_sub_is(METER, 900_057_000_000),
    )


@pytest.mark.parametrize(
    ("hand", "community", "name", "amount"),
    [
        ("9s 9d 9c", "9h 2s", "four_of_a_kind", "300.00"),
        ("Ks Kd 7c", "Kh 7s", "full_house", "50.00"),
        ("Kd 9d 5d", "Jd 6d", "flush", "40.00"),
        ("Jc Ts 9d", "8h 7s", "straight", "30.00"),
        ("Ac 2s 3d", "4h 5s", "straight", "30.00"),  # the wheel
        ("Qs Qd Qc", "9h 5s", "three_of_a_kind", "9.00"),
    ],
)
def test_fixed_lines(hand: str, community: str, name: str, amount: str) -> None:
    # 649a.12(h)(1); the meter only grows ($10,000.21).
    hands({4: hand}, community, (4,)).then(
        pays(fixed(4, amount, hand=name)), meter_is(METER, "10000.21")
    )


@pytest.mark.parametrize(("hand", "community"), [("Ks Kd 7c", "7s 5h"), ("As Ad 7c", "9s 5h")])
def test_two_pair_and_pair_pay_nothing(hand: str, community: str) -> None:
    # 649a.12(h)(1) lists nothing below three-of-a-kind.
    hands({4: hand}, community, (4,)).then(pays_nothing())


def test_the_hand_is_formed_with_the_community_cards() -> None:
    # 649a.11(c)(7): the player's three cards and the two community cards; alone they are nothing.
    hands({4: "Kd 9d 5d"}, "Jd 2d", (4,)).then(pays(fixed(4, "40.00", hand="flush")))


def test_only_the_wagering_seat_is_paid() -> None:
    # 649a.12(h)(1): a seat without the wager wins nothing with a royal flush; the wagering seat
    # gets the $1,000 Five-Card Envy Bonus for it ((h)(5), policy envy_holders = any_dealt_hand).
    given().events(
        *locked_round(
            "tcp-1", "r1", wager(2, "five_card_progressive", "1.00"), wager(6, "ante", "1.00")
        )
    ).when(settled(dealer=DEALER, community="Jh Th", seats={2: "5c 6d 8s", 6: "Ah Kh Qh"})).then(
        pays(envy(2, "1000.00", holder=6)), meter_is(METER, "10000.21")
    )
