"""58 Pa. Code 649a.12(i): the Five Card Hand Bonus Wager, on the player's or the dealer's hand.

Worked by hand: seed $10,000 for 1, reseed $0, primary 21% and reserve 8% of each $1 wager
($0.21 to the meter, $0.08 to the reserve); royal flush 100% of the meter, after which the meter
starts again at $0 + the reserve; straight flush 10% of the meter; four-of-a-kind 500 for 1, full
house 100, flush 50; Magic Card 20 for 1 and Lucky Bonus 5 for 1 ((i)(3)).
"""

from __future__ import annotations

import pytest

from tests.controller.scenario import (
    Outcome,
    Scenario,
    accepted,
    fixed,
    given,
    hit,
    hit_status,
    locked_round,
    meter_is,
    pay,
    pays,
    pays_nothing,
    rejected,
    resolve_hit,
    settled,
    validate,
    wager,
)

METER = "tcp-five-card-bonus"
BONUS = "five_card_hand_bonus"
DEALER = "2c 5d 8s"
ROYAL_COMMUNITY = "Jh Th"  # with Ah Kh Qh: royal flush of hearts


def bets(*seats_on: tuple[int, str]) -> Scenario:
    """A locked round at tcp-1 with a $1 Five Card Hand Bonus per (seat, on)."""
    wagers = (wager(seat, BONUS, "1.00", on=on) for seat, on in seats_on)
    return given().events(*locked_round("tcp-1", "r1", *wagers))


def own(*seats: int) -> Scenario:
    """Each seat wagers on its own hand."""
    return bets(*((seat, "own") for seat in seats))


def test_wagers_fund_the_meter_and_the_reserve() -> None:
    # 649a.12(i)(4): 3 x 21% of $1 on the meter, 3 x 8% of $1 in the reserve.
    own(1, 2, 3).when().then(meter_is(METER, "10000.63", reserve="0.24"))


def test_royal_pays_the_meter_and_restarts_it_from_the_reserve() -> None:
    # 649a.12(i)(1), (4): 100% of $10,000.63; reseed $0, so the meter restarts at the $0.24 reserve.
    seats = {1: "Ah Kh Qh", 2: "3s 4s 9d", 3: "6c 7c Kd"}
    own(1, 2, 3).when(settled(dealer=DEALER, community=ROYAL_COMMUNITY, seats=seats)).then(
        pays(hit(1, "10000.63", hand="royal_flush")), meter_is(METER, "0.24", reserve="0")
    )


def test_after_a_royal_the_meter_grows_from_the_reserve_start() -> None:
    # 649a.12(i)(4): next round, one $1 wager: $0.08 (old reserve) + $0.21 = $0.29; reserve $0.08.
    scenario = own(1)
    scenario.events(settled(dealer=DEALER, community=ROYAL_COMMUNITY, seats={1: "Ah Kh Qh"}))
    scenario.when(*locked_round("tcp-1", "r2", wager(1, BONUS, "1.00"))).then(
        meter_is(METER, "0.29", reserve="0.08")
    )


def test_straight_flush_pays_ten_percent_and_leaves_the_reserve() -> None:
    # 649a.12(i)(1): 10% of $10,000.63 = $1,000.063 -> $1,000.06; meter $9,000.57; reserve intact.
    seats = {1: "2s 3s 9d", 2: "4d 4c Kd", 3: "7h 6h 5h"}
    own(1, 2, 3).when(settled(dealer=DEALER, community="9h 8h", seats=seats)).then(
        pays(hit(3, "1000.06", hand="straight_flush")), meter_is(METER, "9000.57", reserve="0.24")
    )


@pytest.mark.parametrize(
    ("hand", "community", "name", "amount"),
    [
        ("9s 9d 9c", "9h 2s", "four_of_a_kind", "500.00"),
        ("Ks Kd 7c", "Kh 7s", "full_house", "100.00"),
        ("Kd 9d 4d", "Jd 6d", "flush", "50.00"),
    ],
)
def test_fixed_lines(hand: str, community: str, name: str, amount: str) -> None:
    # 649a.12(i)(1).
    own(4).when(settled(dealer=DEALER, community=community, seats={4: hand})).then(
        pays(fixed(4, amount, hand=name)), meter_is(METER, "10000.21", reserve="0.08")
    )


@pytest.mark.parametrize(("hand", "community"), [("Jc Ts 9d", "Qh 7s"), ("Qs Qd Qc", "9h 4s")])
def test_straight_and_three_of_a_kind_pay_nothing(hand: str, community: str) -> None:
    # 649a.12(i)(1) lists nothing below a flush.
    own(4).when(settled(dealer=DEALER, community=community, seats={4: hand})).then(pays_nothing())


def test_a_wager_on_the_dealer_hand_is_paid_on_the_dealer_hand() -> None:
    # 649a.12(i)(2): the dealer's three cards and the two community cards: a flush pays 50 for 1.
    bets((2, "dealer")).when(
        settled(dealer="Kd 9d 4d", community="Jd 6d", seats={2: "2c 3c 7s"})
    ).then(pays(fixed(2, "50.00", hand="flush", on="dealer")))


def test_a_player_with_both_wagers_is_paid_on_both_hands() -> None:
    # 649a.12(i)(2): "a payout ... for both the highest ranking five-card Poker hand of the dealer
    # and the highest ranking five-card Poker hand of the player": own flush $50, dealer FH $100.
    bets((2, "own"), (2, "dealer")).when(
        settled(dealer="Ks Kd 7c", community="Kh 7h", seats={2: "Ah 9h 4h"})
    ).then(pays(fixed(2, "50.00", on="own"), fixed(2, "100.00", on="dealer")))


def test_fixed_dealer_hand_awards_are_not_divided() -> None:
    # 649a.12(i)(2) divides only a percentage-of-meter jackpot: each dealer wager gets 50 for 1.
    bets((5, "dealer"), (2, "dealer")).when(
        settled(dealer="Kd 9d 4d", community="Jd 6d", seats={5: "2c 3c 7s", 2: "As Ah 8c"})
    ).then(pays(fixed(5, "50.00"), fixed(2, "50.00")))


def dealer_royal_for(*seats: int) -> Outcome:
    """Every seat wagers only on the dealer, whose Qh Jh Th + Ah Kh is a royal flush."""
    hands = {seat: f"{rank}c {rank}d {rank}s" for seat, rank in zip(seats, "2345", strict=False)}
    return bets(*((seat, "dealer") for seat in seats)).when(
        settled(dealer="Qh Jh Th", community="Ah Kh", seats=hands)
    )


def test_a_dealer_royal_is_divided_equally_with_the_odd_cent_to_the_first_settled() -> None:
    # 649a.12(i)(2): $10,000.63 / 3 = $3,333.54 r $0.01; policy: the odd cent to the first in
    # settlement order (seat 6, farthest to the dealer's right). Parts sum to the jackpot; the meter
    # restarts at the $0.24 reserve.
    dealer_royal_for(1, 4, 6).then(
        pays(hit(6, "3333.55", on="dealer"), hit(4, "3333.54"), hit(1, "3333.54")),
        meter_is(METER, "0.24", reserve="0"),
    )


def test_a_dealer_royal_for_one_wager_is_not_divided() -> None:
    # 649a.12(i)(2): one wager on the dealer's hand takes the whole $10,000.21.
    dealer_royal_for(3).then(pays(hit(3, "10000.21")), meter_is(METER, "0.08", reserve="0"))


def test_a_dealer_straight_flush_is_divided_equally() -> None:
    # 649a.12(i)(1)-(2): 10% of $10,000.42 = $1,000.042 -> $1,000.04, two ways: $500.02 each;
    # meter $10,000.42 - $1,000.04 = $9,000.38.
    bets((7, "dealer"), (2, "dealer")).when(
        settled(dealer="Qh Jh Th", community="9h 8h", seats={7: "2c 2d 3s", 2: "4c 4d 5s"})
    ).then(pays(hit(7, "500.02"), hit(2, "500.02")), meter_is(METER, "9000.38", reserve="0.16"))


def test_lucky_bonus_pays_5_for_1_on_the_drawn_seat() -> None:
    # 649a.12(i)(3) Lucky Bonus 5 for 1; policy: it pays the wagers on the random_seat's hand.
    bets((2, "own"), (4, "dealer")).when(
        settled(
            dealer="2c 7d 9h",
            community="3s 4s",
            seats={2: "Ah Kd 8c", 4: "5c 6c Jd"},
            random_seat="2",
        )
    ).then(pays(fixed(2, "5.00", hand="lucky_bonus", on="own")))


def test_lucky_bonus_on_the_dealer_pays_every_dealer_wager() -> None:
    # 649a.12(i)(3); policy: random_seat "dealer" names the dealer's hand.
    bets((2, "own"), (4, "dealer"), (5, "dealer")).when(
        settled(
            dealer="2c 7d 9h",
            community="3s 4s",
            seats={2: "Ah Kd 8c", 4: "5c 6c Jd", 5: "Tc Td Qs"},
            random_seat="dealer",
        )
    ).then(pays(fixed(5, "5.00", on="dealer"), fixed(4, "5.00", on="dealer")))


def test_the_magic_card_outside_the_hand_pays_nothing() -> None:
    # 649a.12(i)(3) Magic Card; policy: it pays only when the card is among the hand's cards.
    own(2).when(
        settled(dealer="2c 7d 9h", community="3s 4s", seats={2: "Ah Kd 8c"}, magic_card="Qd")
    ).then(pays_nothing())


def test_the_magic_card_in_the_hand_pays_20_for_1() -> None:
    # 649a.12(i)(3) Magic Card 20 for 1: seat 2 holds the designated Ah -> $20.
    own(2).when(
        settled(dealer="2c 7d 9h", community="3s 4s", seats={2: "Ah Kd 8c"}, magic_card="Ah")
    ).then(pays(fixed(2, "20.00", hand="magic_card")))


def test_a_five_card_hand_bonus_cannot_ride_on_another_seat() -> None:
    # 649a.12(i)(2): the player's hand or the dealer's hand, nothing else.
    given().events(*locked_round("tcp-1", "r1")[:1]).when(
        wager(2, BONUS, "1.00", on="seat:3")
    ).then(rejected("cannot be placed on 'seat:3'"))


def test_a_500_for_1_award_waits_for_floorperson_verification() -> None:
    # 649a.11(c)(8)(ii): a floorperson verifies any Five Card Hand Bonus payout of 500 for 1.
    # The four of a kind pays $500 for the $1 wager once validated; the meter is not touched.
    scenario = own(4)
    scenario.when(settled(dealer=DEALER, community="9h 2s", seats={4: "9s 9d 9c"})).then(
        pays(fixed(4, "500.00", hand="four_of_a_kind")),
        hit_status("tcp-1/r1/five_card_hand_bonus/seat4", "pending_validation"),
        meter_is(METER, "10000.21", reserve="0.08"),
    )
    short = "tcp-1/r1/five_card_hand_bonus/seat4"
    scenario.when(pay(short)).then(rejected("must be validated before it is paid"))
    scenario.when(validate(short)).then(accepted(), hit_status(short, "validated"))
    scenario.when(pay(short)).then(accepted(), hit_status(short, "paid"))
    assert scenario.state.hits[resolve_hit(scenario.state, short)].amount_cents == 500_00


def test_awards_below_500_for_1_need_no_verification() -> None:
    # 649a.11(c)(8)(ii) names 500 for 1 and percentages only: 100 for 1 is paid at once.
    scenario = own(4)
    scenario.when(settled(dealer=DEALER, community="Kh 7s", seats={4: "Ks Kd 7c"})).then(
        pays(fixed(4, "100.00", hand="full_house"))
    )
    assert len(scenario.state.hits) == 0
