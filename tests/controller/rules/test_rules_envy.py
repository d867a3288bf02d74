"""Envy Bonuses: 649a.11(c)(5)(v), (7)(v), (9)(v) with the amounts of 649a.12(e)(5), (h)(5), (j)(5).

A player with the matching progressive wager receives an Envy Bonus for each *other* player at the
same table holding a qualifying hand, never for his own hand or the dealer's; the amount depends on
the receiving player's wager ($1 or $5); envy is a fixed sum, not taken from the meter.
"""

from __future__ import annotations

from tests.controller.scenario import (
    PA,
    Scenario,
    envy,
    fixed,
    given,
    hit,
    locked_round,
    meter_is,
    pays,
    settled,
    wager,
    with_policy,
)

DEALER = "2c 5d 8s"


def wagering(kind: str, *seats: int, table: str = "tcp-1", amount: str = "1.00") -> Scenario:
    """A locked round where ``seats`` each wager ``kind``."""
    wagers = (wager(seat, kind, amount) for seat in seats)
    return given().events(*locked_round(table, "r1", *wagers))


def test_each_other_wagering_player_gets_100_dollars_for_ace_king_queen_of_spades() -> None:
    # 649a.12(e)(5) $1 wager: $100 each to seats 3 and 2; nothing to seat 5 for its own hand.
    wagering("progressive", 2, 3, 5).when(
        settled(dealer=DEALER, seats={2: "3h 4h 9c", 3: "6c 7d Jd", 5: "As Ks Qs"})
    ).then(
        pays(hit(5, "1000.42"), envy(3, "100.00", holder=5), envy(2, "100.00", holder=5)),
        meter_is("tcp-progressive", "1000.00"),
    )


def test_ace_king_queen_suited_envy_is_25_dollars() -> None:
    # 649a.12(e)(5): $25 for A-K-Q of hearts, diamonds or clubs; the holder is paid 500 for 1.
    wagering("progressive", 1, 6).when(
        settled(dealer=DEALER, seats={1: "3h 4h 9c", 6: "Ad Kd Qd"})
    ).then(pays(fixed(6, "500.00"), envy(1, "25.00", hand="ace_king_queen_suited")))


def test_five_dollar_wagers_get_500_and_125() -> None:
    # 649a.12(e)(5) $5 wager: $500 for A-K-Q of spades, $125 for A-K-Q of another suit.
    wagering("progressive", 1, 4, 7, table="tcp-7", amount="5.00").when(
        settled(dealer=DEALER, seats={1: "3h 4h 9c", 4: "As Ks Qs", 7: "Ac Kc Qc"})
    ).then(
        pays(
            fixed(7, "2500.00"),
            envy(7, "500.00", holder=4),
            hit(4, "5002.10"),  # 100% of $5,000 + 3 x $0.70
            envy(4, "125.00", holder=7),
            envy(1, "125.00", holder=7),  # holders in settlement order: seat 7, then seat 4
            envy(1, "500.00", holder=4),
        )
    )


def test_the_dealer_hand_earns_no_envy() -> None:
    # 649a.11(c)(5)(v): "not entitled to an Envy Bonus for ... the hand of the dealer".
    wagering("progressive", 2).when(settled(dealer="As Ks Qs", seats={2: "3h 4h 9c"})).then(pays())


def test_no_envy_without_the_progressive_wager() -> None:
    # 649a.11(c)(5)(v): only "players making a Progressive Payout Wager" receive an Envy Bonus.
    given().events(
        *locked_round("tcp-1", "r1", wager(2, "ante", "1.00"), wager(5, "progressive", "1.00"))
    ).when(settled(dealer=DEALER, seats={2: "3h 4h 9c", 5: "As Ks Qs"})).then(
        pays(hit(5, "1000.14"))
    )


def holder_without_wager(config_text: str) -> Scenario:
    """Seat 5 holds A-K-Q of spades with only an ante; seat 2 wagers the progressive."""
    return given(config_text).events(
        *locked_round("tcp-1", "r1", wager(2, "progressive", "1.00"), wager(5, "ante", "1.00"))
    )


def test_policy_any_dealt_hand_counts_a_holder_without_the_wager() -> None:
    # 649a.11(c)(5)(v) "another player at the same table"; policy envy_holders = any_dealt_hand.
    holder_without_wager(PA).when(
        settled(dealer=DEALER, seats={2: "3h 4h 9c", 5: "As Ks Qs"})
    ).then(pays(envy(2, "100.00", holder=5)))


def test_policy_progressive_wagerers_needs_the_holder_to_have_wagered() -> None:
    # Policy envy_holders = progressive_wagerers: only a holder with the wager qualifies.
    config = with_policy(PA, "envy_holders", "progressive_wagerers")
    holder_without_wager(config).when(
        settled(dealer=DEALER, seats={2: "3h 4h 9c", 5: "As Ks Qs"})
    ).then(pays())


def test_five_card_envy_is_1000_for_a_royal_and_300_for_a_straight_flush() -> None:
    # 649a.12(h)(5) $1 wager; hands formed with the community Jh Th: seat 6 royal, seat 4 J-high SF.
    wagering("five_card_progressive", 1, 4, 6).when(
        settled(
            dealer=DEALER,
            community="Jh Th",
            seats={1: "3c 4c 9d", 4: "9h 8h 7h", 6: "Ah Kh Qh"},
        )
    ).then(
        pays(
            hit(6, "10000.63"),
            envy(6, "300.00", holder=4),
            hit(4, "1000.00"),
            envy(4, "1000.00", holder=6),
            envy(1, "1000.00", holder=6),
            envy(1, "300.00", holder=4),
        )
    )


def test_five_of_six_envy_is_100_for_spades_and_50_for_another_royal() -> None:
    # 649a.12(j)(5) $1 wager, with the dealer's Js Ts 4d: seat 3 holds the royal of spades.
    wagering("five_of_six_progressive", 1, 3).when(
        settled(dealer="Js Ts 4d", seats={1: "2h 3h 9c", 3: "As Ks Qs"})
    ).then(pays(hit(3, "10000.56"), envy(1, "100.00", holder=3)))


def test_five_of_six_envy_for_a_royal_of_hearts_is_50() -> None:
    # 649a.12(j)(5): $50 for a royal flush of clubs, diamonds or hearts; the holder gets 25%.
    wagering("five_of_six_progressive", 1, 3).when(
        settled(dealer="Jh Th 4d", seats={1: "2c 3c 9c", 3: "Ah Kh Qh"})
    ).then(pays(hit(3, "2500.14"), envy(1, "50.00", holder=3)))


def test_envy_is_not_taken_from_the_meter() -> None:
    # Rules README 5: envy is a fixed sum; after the A-K-Q suited (fixed) and its envy the meter
    # still holds $1,000 + 2 x $0.14.
    wagering("progressive", 1, 6).when(
        settled(dealer=DEALER, seats={1: "3h 4h 9c", 6: "Ad Kd Qd"})
    ).then(meter_is("tcp-progressive", "1000.28"))


def test_envy_only_at_the_same_table() -> None:
    # 649a.11(c)(5)(v): "another player at the same Three Card Poker table".
    scenario = wagering("progressive", 2)
    scenario.events(*locked_round("tcp-2", "r1", wager(5, "progressive", "1.00")))
    scenario.when(settled(dealer=DEALER, seats={5: "As Ks Qs"})).then(pays(hit(5, "1000.28")))
