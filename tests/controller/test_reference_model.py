"""Hand-worked checks of `tests.reference_model`, so the stateful tests compare against something
trustworthy. Every figure below is worked from 58 Pa. Code 649a.12 in the comment beside it."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from tests.reference_model import (
    Award,
    Deal,
    ReferenceFloor,
    Wager,
    five_card_class,
    from_subunits,
    is_ace_king_queen_of_spades,
    royal_suits,
    to_subunits,
)

PA = (Path(__file__).resolve().parents[2] / "examples" / "pa-three-card-poker.toml").read_text()
BONUS = "five_card_hand_bonus"
FIVE = "five_card_progressive"
OTHER_SEATS = ("2c 3d 5h", "4c 6d 8h", "9c Td 2d", "3c 4d 6h", "7c 8d Tc")


def d(text: str) -> Fraction:
    """Dollars as a decimal string, exactly."""
    return Fraction(text)


def floor_with(table: str, *wagers: Wager) -> ReferenceFloor:
    """The example floor with these wagers locked at ``table``."""
    floor = ReferenceFloor.from_toml(PA)
    floor.lock(table, wagers)
    return floor


def deal(dealer: str, community: str, **seats: str) -> Deal:
    """Cards at settlement; seats given as s1="As Ks Qs"."""
    return Deal(
        dealer=tuple(dealer.split()),
        community=tuple(community.split()),
        seats={int(key[1:]): tuple(cards.split()) for key, cards in seats.items()},
    )


def assert_conserved(floor: ReferenceFloor) -> None:
    for meter in floor.meters.values():
        assert meter.explained() == meter.amount + meter.reserve, meter


# --- the evaluator --------------------------------------------------------------------------------


def test_evaluator_knows_the_meter_hands() -> None:
    assert is_ace_king_queen_of_spades(["Qs", "As", "Ks"])
    assert not is_ace_king_queen_of_spades(["Qh", "Ah", "Kh"])
    assert not is_ace_king_queen_of_spades(["Qs", "As", "Js"])
    assert five_card_class(["Ts", "Js", "Qs", "Ks", "As"]) == "royal_flush"
    assert five_card_class(["10h", "Jh", "Qh", "Kh", "Ah"]) == "royal_flush"
    assert five_card_class(["Ah", "2h", "3h", "4h", "5h"]) == "straight_flush"  # the wheel
    assert five_card_class(["9d", "Td", "Jd", "Qd", "Kd"]) == "straight_flush"
    assert five_card_class(["Qd", "Kd", "Ad", "2d", "3d"]) is None  # no wrap-around straight
    assert five_card_class(["2d", "4d", "6d", "8d", "Td"]) is None  # a flush only
    assert five_card_class(["Ts", "Jh", "Qs", "Ks", "As"]) is None  # a straight only
    assert royal_suits(["As", "Ks", "Qs", "Js", "Ts", "2c"]) == {"s"}
    assert royal_suits(["Ah", "Kh", "Qh", "Jh", "9h", "Th"]) == {"h"}
    assert royal_suits(["As", "Ks", "Qs", "Js", "9s", "Th"]) == set()


def test_units_are_exact() -> None:
    # A sub-unit is 1/1,000,000 of a cent: $0.21 is 21,000,000 sub-units.
    assert to_subunits(d("0.21")) == 21_000_000
    assert from_subunits(21_000_000) == d("0.21")


# --- seeds and contributions ----------------------------------------------------------------------


def test_seeds_are_for_one_times_the_wager_unit() -> None:
    floor = ReferenceFloor.from_toml(PA)
    amounts = {mid: (m.amount, m.reserve) for mid, m in floor.meters.items()}
    assert amounts == {
        "tcp-progressive": (d("1000"), d("0")),  # (e)(3) $1,000 for 1 at $1
        "tcp-progressive-5": (d("5000"), d("0")),  # ... at the $5 tables of tcp-7, tcp-8
        "tcp-five-card": (d("10000"), d("0")),  # (h)(3)
        "tcp-five-card-bonus": (d("10000"), d("0")),  # (i)(4)
        "tcp-five-of-six": (d("10000"), d("0")),  # (j)(3)
    }


def test_contributions_at_lock() -> None:
    # (i)(4): three $1 wagers: 3 x 21% to the meter, 3 x 8% to the reserve.
    floor = floor_with("tcp-1", Wager(1, BONUS), Wager(2, BONUS), Wager(3, BONUS, "dealer"))
    meter = floor.meters["tcp-five-card-bonus"]
    assert (meter.amount, meter.reserve) == (d("10000.63"), d("0.24"))
    # (e)(3) at tcp-7: 14% of a $5 wager is $0.70; ante and pair plus feed no meter.
    floor.lock("tcp-7", [Wager(1, "progressive"), Wager(1, "ante"), Wager(2, "pair_plus")])
    assert floor.meters["tcp-progressive-5"].amount == d("5000.70")
    assert_conserved(floor)


def test_void_takes_back_exactly_the_round() -> None:
    floor = floor_with("tcp-1", Wager(1, BONUS), Wager(1, "progressive"))
    floor.lock("tcp-2", [Wager(4, BONUS)])
    assert floor.void("tcp-1") == 0
    bonus = floor.meters["tcp-five-card-bonus"]
    assert (bonus.amount, bonus.reserve) == (d("10000.21"), d("0.08"))  # tcp-2's wager stays
    assert floor.meters["tcp-progressive"].amount == d("1000")
    assert_conserved(floor)


def test_correction_adds_its_deltas() -> None:
    floor = ReferenceFloor.from_toml(PA)
    floor.correct("tcp-five-card-bonus", d("-0.5"), d("0.25"))
    bonus = floor.meters["tcp-five-card-bonus"]
    assert (bonus.amount, bonus.reserve) == (d("9999.5"), d("0.25"))
    assert_conserved(floor)


# --- awards ---------------------------------------------------------------------------------------


def test_royal_on_the_bonus_restarts_from_the_reserve() -> None:
    # (i)(1), (4): 100% of $10,000.63; reseed $0 so the meter restarts at the $0.24 reserve.
    floor = floor_with("tcp-1", Wager(1, BONUS), Wager(2, BONUS), Wager(3, BONUS))
    awards = floor.settle(
        "tcp-1",
        [Wager(1, BONUS), Wager(2, BONUS), Wager(3, BONUS)],
        (),
        deal("2c 5d 8s", "Jh Th", s1="Ah Kh Qh", s2="3s 4s 9d", s3="6c 7c Kd"),
    )
    assert awards == [Award("tcp-five-card-bonus", BONUS, "own", "royal_flush", ((1, 1_000_063),))]
    bonus = floor.meters["tcp-five-card-bonus"]
    assert (bonus.amount, bonus.reserve) == (d("0.24"), d("0"))
    assert_conserved(floor)


def test_the_sub_cent_rest_stays_after_a_hundred_percent_hit() -> None:
    # (h)(1): $10,000.21 + a correction of $0.00555 -> pays $10,000.21; the meter restarts at the
    # $10,000 reseed plus the $0.00555 that no cent could pay.
    wagers = [Wager(1, FIVE)]
    floor = floor_with("tcp-1", *wagers)
    floor.correct("tcp-five-card", d("0.00555"), d("0"))
    awards = floor.settle("tcp-1", wagers, (), deal("2c 5d 8s", "Jh Th", s1="Ah Kh Qh"))
    assert [a.shares for a in awards] == [((1, 1_000_021),)]
    assert floor.meters["tcp-five-card"].amount == d("10000.00555")
    assert_conserved(floor)


@pytest.mark.parametrize(
    ("royal_seat", "flush_seat", "shares", "after"),
    [
        # Seat 5 first (649a.11(c)): 10% of $10,000.42 = $1,000.042 -> $1,000.04, leaving
        # $9,000.38; seat 3's royal then takes all of $9,000.38 and the meter reseeds at $10,000.
        (3, 5, [((5, 100_004),), ((3, 900_038),)], "10000"),
        # Seat 5's royal first takes $10,000.42; seat 3 then gets 10% of the $10,000 reseed.
        (5, 3, [((5, 1_000_042),), ((3, 100_000),)], "9000"),
    ],
)
def test_two_winners_of_one_meter_are_paid_one_after_the_other(
    royal_seat: int, flush_seat: int, shares: list[tuple[tuple[int, int], ...]], after: str
) -> None:
    wagers = [Wager(3, FIVE), Wager(5, FIVE)]
    floor = floor_with("tcp-1", *wagers)
    cards = {f"s{royal_seat}": "Ah Kh Qh", f"s{flush_seat}": "9h 8h 7h"}
    awards = floor.settle("tcp-1", wagers, (), deal("2c 5d 8s", "Jh Th", **cards))
    assert [a.shares for a in awards] == shares
    assert floor.meters["tcp-five-card"].amount == d(after)
    assert_conserved(floor)


def test_dealer_royal_is_split_with_the_odd_cent_to_the_first_in_order() -> None:
    # (i)(2): $10,000.63 among three dealer wagerers: 1,000,063 cents = 3 x 333,354 + 1; the odd
    # cent goes to seat 6, the first settled. The meter restarts at the $0.24 reserve.
    wagers = [Wager(2, BONUS, "dealer"), Wager(4, BONUS, "dealer"), Wager(6, BONUS, "dealer")]
    floor = floor_with("tcp-1", *wagers)
    seats = {"s2": OTHER_SEATS[0], "s4": OTHER_SEATS[1], "s6": OTHER_SEATS[2]}
    awards = floor.settle("tcp-1", wagers, (), deal("Ah Kh Qh", "Jh Th", **seats))
    assert awards == [
        Award(
            "tcp-five-card-bonus",
            BONUS,
            "dealer",
            "royal_flush",
            ((6, 333_355), (4, 333_354), (2, 333_354)),
        )
    ]
    assert floor.meters["tcp-five-card-bonus"].amount == d("0.24")
    assert_conserved(floor)


def test_dealer_jackpot_comes_at_the_first_dealer_wagerers_turn_after_own() -> None:
    # Seat 6 wagered on the dealer only, seat 5 on its own hand: the dealer's royal is paid at seat
    # 6's turn (first in order), $10,000.42; the meter restarts at the $0.16 reserve; seat 5's
    # straight flush then gets 10% of $0.16 = $0.016 -> $0.01.
    wagers = [Wager(6, BONUS, "dealer"), Wager(5, BONUS)]
    floor = floor_with("tcp-1", *wagers)
    seats = {"s6": OTHER_SEATS[0], "s5": "9h 8h 7h"}
    awards = floor.settle("tcp-1", wagers, (), deal("Ah Kh Qh", "Jh Th", **seats))
    assert [(a.on, a.shares) for a in awards] == [
        ("dealer", ((6, 1_000_042),)),
        ("own", ((5, 1),)),
    ]
    assert floor.meters["tcp-five-card-bonus"].amount == d("0.15")
    # The same cards when seat 5 wagered on both: its own hand first, then the dealer's.
    wagers = [Wager(5, BONUS, "dealer"), Wager(5, BONUS)]
    floor = floor_with("tcp-1", *wagers)
    awards = floor.settle("tcp-1", wagers, (), deal("Ah Kh Qh", "Jh Th", s5="9h 8h 7h"))
    assert [(a.on, a.shares) for a in awards] == [
        ("own", ((5, 100_004),)),  # 10% of $10,000.42
        ("dealer", ((5, 900_038),)),  # all of $9,000.38
    ]
    assert floor.meters["tcp-five-card-bonus"].amount == d("0.16")
    assert_conserved(floor)


def test_fold_forfeits_the_progressive_but_not_the_bonus() -> None:
    # 649a.11(b)(2)-(3): seat 1 folds with AKQ of spades and, with Js Ts, a royal: the Progressive
    # and Five-Card Progressive are forfeited; the Five Card Hand Bonus royal is paid.
    wagers = [Wager(1, "progressive"), Wager(1, FIVE), Wager(1, BONUS)]
    floor = floor_with("tcp-1", *wagers)
    awards = floor.settle("tcp-1", wagers, {1}, deal("2c 5d 8h", "Js Ts", s1="As Ks Qs"))
    assert [(a.kind, a.shares) for a in awards] == [(BONUS, ((1, 1_000_021),))]
    assert floor.meters["tcp-progressive"].amount == d("1000.14")  # contribution kept
    assert floor.meters["tcp-five-card"].amount == d("10000.21")
    assert_conserved(floor)


def test_akq_of_spades_and_five_of_six_royals() -> None:
    # (e)(1): AKQ of spades takes $1,000.14 and reseeds at $1,000. (j)(1): with the dealer's Js Ts
    # the same cards make a royal of spades: 100% of $10,000.28.
    wagers = [Wager(1, "progressive"), Wager(1, "five_of_six_progressive")]
    floor = floor_with("tcp-1", *wagers)
    awards = floor.settle("tcp-1", wagers, (), deal("Js Ts 2c", "4d 9h", s1="As Ks Qs"))
    assert [(a.hand, a.shares) for a in awards] == [
        ("ace_king_queen_of_spades", ((1, 100_014),)),
        ("royal_flush_of_spades", ((1, 1_000_028),)),
    ]
    assert floor.meters["tcp-progressive"].amount == d("1000")
    assert floor.meters["tcp-five-of-six"].amount == d("10000")
    # (j)(1): a royal of hearts is 25% of $10,000.28 = $2,500.07, leaving $7,500.21.
    floor.lock("tcp-2", [Wager(3, "five_of_six_progressive")])
    awards = floor.settle(
        "tcp-2",
        [Wager(3, "five_of_six_progressive")],
        (),
        deal("Jh Th 2c", "4d 9s", s3="Ah Kh Qh"),
    )
    assert [(a.hand, a.shares) for a in awards] == [("royal_flush", ((3, 250_007),))]
    assert floor.meters["tcp-five-of-six"].amount == d("7500.21")
    assert_conserved(floor)


def test_a_void_takes_back_only_what_is_still_there() -> None:
    # tcp-1 and tcp-2 each lock a $1 Five Card Hand Bonus ($10,000.42, reserve $0.16); tcp-2's
    # royal pays $10,000.42 and the meter restarts at the $0.16 reserve. That 100% hit paid tcp-1's
    # contributions out, so voiding tcp-1 takes nothing back.
    floor = floor_with("tcp-1", Wager(1, BONUS))
    floor.lock("tcp-2", [Wager(1, BONUS)])
    floor.settle("tcp-2", [Wager(1, BONUS)], (), deal("2c 5d 8s", "Jh Th", s1="Ah Kh Qh"))
    assert floor.void("tcp-1") == d("0.29")  # none of $0.21 + $0.08 came back
    bonus = floor.meters["tcp-five-card-bonus"]
    assert (bonus.amount, bonus.reserve) == (d("0.16"), d("0"))
    # A correction leaves $0.10 on a meter a round fed $0.21: the void takes back only $0.10.
    floor = floor_with("tcp-1", Wager(1, FIVE))
    floor.correct("tcp-five-card", d("-10000.11"), d("0"))
    assert floor.void("tcp-1") == d("0.11")
    assert floor.meters["tcp-five-card"].amount == d("0")
    assert_conserved(floor)
