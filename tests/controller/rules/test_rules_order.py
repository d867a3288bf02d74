"""Order of payment: 649a.11(c) and 649a.12(e)(4), (h)(4), (j)(4); rules README item 1.

Players are settled from the one farthest to the dealer's right (the highest seat) counterclockwise,
and a progressive is paid "in accordance with the amount on the meter when it is the player's
turn": a second winner of one meter is paid from the meter after the first payout and reset.
"""

from __future__ import annotations

from tests.controller.scenario import (
    PA,
    Outcome,
    Scenario,
    at,
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
FIVE = "five_card_progressive"
BONUS = "five_card_hand_bonus"


def five_card_round(seat_cards: dict[int, str], community: str) -> Outcome:
    """Every seat wagers the Five-Card Progressive at tcp-1."""
    wagers = (wager(seat, FIVE, "1.00") for seat in seat_cards)
    return (
        given()
        .events(*locked_round("tcp-1", "r1", *wagers))
        .when(settled(dealer=DEALER, community=community, seats=seat_cards))
    )


def test_players_are_settled_from_the_highest_seat() -> None:
    # 649a.11(c): farthest to the dealer's right first; fixed lines of 649a.12(e)(1) paytable A.
    wagers = (wager(seat, "progressive", "1.00") for seat in (1, 4, 7))
    given().events(*locked_round("tcp-1", "r1", *wagers)).when(
        settled(dealer=DEALER, seats={1: "Jh Jc Js", 4: "6h 5s 4c", 7: "9d Td 8d"})
    ).then(pays(fixed(7, "70.00"), fixed(4, "6.00"), fixed(1, "60.00")))


def test_two_straight_flushes_the_second_paid_from_the_reduced_meter() -> None:
    # 649a.12(h)(4): meter $10,000.42. Seat 6 (9-high SF) is settled first: 10% = $1,000.04,
    # meter $9,000.38; then seat 2 (Q-high SF): 10% of $9,000.38 = $900.03; meter $8,100.35.
    five_card_round({2: "Qh Jh Th", 6: "7h 6h 5h"}, "9h 8h").then(
        pays(hit(6, "1000.04"), envy(6, "300.00"), hit(2, "900.03"), envy(2, "300.00")),
        meter_is("tcp-five-card", "8100.35"),
    )


def test_a_royal_then_a_straight_flush_the_second_paid_after_the_reset() -> None:
    # 649a.12(h)(4), rules README 1: seat 4's royal takes 100% of $10,000.42 and the meter reseeds
    # at $10,000; seat 2's straight flush is then 10% of $10,000.00 = $1,000.00; meter $9,000.00.
    five_card_round({2: "9h 8h 7h", 4: "Ah Kh Qh"}, "Jh Th").then(
        pays(hit(4, "10000.42"), envy(4, "300.00"), hit(2, "1000.00"), envy(2, "1000.00")),
        meter_is("tcp-five-card", "9000.00"),
    )


def test_a_straight_flush_then_a_royal_in_seat_order() -> None:
    # 649a.12(h)(4): seat 4's SF first: 10% of $10,000.42 = $1,000.04, meter $9,000.38; seat 2's
    # royal then takes the $9,000.38 on the meter, which reseeds at $10,000.
    five_card_round({2: "Ah Kh Qh", 4: "9h 8h 7h"}, "Jh Th").then(
        pays(hit(4, "1000.04"), envy(4, "1000.00"), hit(2, "9000.38"), envy(2, "300.00")),
        meter_is("tcp-five-card", "10000.00"),
    )


def two_tables(kind: str) -> Scenario:
    """tcp-1 and tcp-2 (linked to the same meters) each lock one $1 ``kind`` wager at seat 1."""
    scenario = given().events(*locked_round("tcp-1", "r1", wager(1, kind, "1.00")))
    return scenario.events(*locked_round("tcp-2", "r1", wager(1, kind, "1.00")))


def test_two_tables_on_one_meter_the_second_paid_after_the_reseed() -> None:
    # 649a.12(e)(4): meter $1,000.28; tcp-2 settles first and takes it all, the meter reseeds at
    # $1,000; tcp-1's A-K-Q of spades then takes $1,000.00.
    scenario = two_tables("progressive")
    scenario.when(settled(dealer=DEALER, seats={1: "As Ks Qs"})).then(
        pays(hit(1, "1000.28")), meter_is("tcp-progressive", "1000.00")
    )
    scenario.when(at(settled(dealer=DEALER, seats={1: "Qs Ks As"}), table="tcp-1")).then(
        pays(hit(1, "1000.00")), meter_is("tcp-progressive", "1000.00")
    )


def test_two_tables_on_a_reserve_meter_the_second_royal_takes_the_reserve_start() -> None:
    # 649a.12(i)(4): meter $10,000.42, reserve $0.16. The first royal takes $10,000.42 and the
    # meter restarts at $0 + $0.16; the second royal takes $0.16; meter and reserve are then $0.
    scenario = two_tables(BONUS)
    royal = settled(dealer=DEALER, community="Jh Th", seats={1: "Ah Kh Qh"})
    scenario.when(royal).then(
        pays(hit(1, "10000.42")), meter_is("tcp-five-card-bonus", "0.16", reserve="0")
    )
    scenario.when(at(royal, table="tcp-1")).then(
        pays(hit(1, "0.16")), meter_is("tcp-five-card-bonus", "0.00", reserve="0")
    )


def test_wager_kinds_settle_in_the_order_of_649a11c() -> None:
    # 649a.11(c)(5) Progressive, then (7) Five-Card "after settling all other wagers", each kind
    # from the highest seat: (e) seat 6, (e) seat 2, (h) seat 6, (h) seat 2.
    wagers = [wager(seat, kind, "1.00") for seat in (2, 6) for kind in ("progressive", FIVE)]
    given().events(*locked_round("tcp-1", "r1", *wagers)).when(
        settled(dealer=DEALER, community="Kd 3s", seats={2: "Jh Jc Js", 6: "6h 5s 4c"})
    ).then(
        pays(
            fixed(6, "6.00", hand="straight"),
            fixed(2, "60.00", hand="three_of_a_kind"),
            fixed(2, "9.00", hand="three_of_a_kind"),
        )
    )


def dealer_and_own(config_text: str, dealer_wagerers: tuple[int, ...]) -> Outcome:
    """(i) at tcp-1: seat 5 wagers own and dealer, seat 3 own; ``dealer_wagerers`` on the dealer.

    Community 9h 8h: the dealer's Qh Jh Th is a Q-high straight flush, seat 3's 7h 6h 5h a 9-high
    straight flush, seat 5's 2c 2d 4s nothing. Three wagers: meter $10,000.63.
    """
    wagers = [wager(5, BONUS, "1.00"), wager(3, BONUS, "1.00")]
    wagers += [wager(seat, BONUS, "1.00", on="dealer") for seat in dealer_wagerers]
    return (
        given(config_text)
        .events(*locked_round("tcp-1", "r1", *wagers))
        .when(settled(dealer="Qh Jh Th", community="9h 8h", seats={5: "2c 2d 4s", 3: "7h 6h 5h"}))
    )


def test_dealer_hand_at_the_first_dealer_wagerers_turn() -> None:
    # Policy dealer_hand_turn = first_wagerer_after_own (default), 649a.12(i)(2): seat 5's own hand
    # pays nothing, then the dealer's SF: 10% of $10,000.63 = $1,000.06 to seat 5 (meter
    # $9,000.57); then seat 3: 10% of $9,000.57 = $900.05; meter $8,100.52.
    dealer_and_own(PA, (5,)).then(
        pays(hit(5, "1000.06", on="dealer"), hit(3, "900.05", on="own")),
        meter_is("tcp-five-card-bonus", "8100.52", reserve="0.24"),
    )


def test_dealer_hand_after_all_players() -> None:
    # Policy after_all_players: seat 3's SF first ($1,000.06), then the dealer's ($900.05).
    config = with_policy(PA, "dealer_hand_turn", "after_all_players")
    dealer_and_own(config, (5,)).then(
        pays(hit(3, "1000.06", on="own"), hit(5, "900.05", on="dealer")),
        meter_is("tcp-five-card-bonus", "8100.52"),
    )


def own_then_dealer(config_text: str) -> Outcome:
    """(i) at tcp-1: seat 5 own and dealer, seat 3 dealer only; seat 5 and the dealer hold
    straight flushes with the community 9h 8h. Three wagers: meter $10,000.63."""
    wagers = (
        wager(5, BONUS, "1.00"),
        wager(5, BONUS, "1.00", on="dealer"),
        wager(3, BONUS, "1.00", on="dealer"),
    )
    return (
        given(config_text)
        .events(*locked_round("tcp-1", "r1", *wagers))
        .when(settled(dealer="Qh Jh Th", community="9h 8h", seats={5: "7h 6h 5h", 3: "2c 2d 4s"}))
    )


def test_dealer_hand_after_the_first_wagerers_own_hand() -> None:
    # first_wagerer_after_own: seat 5 own 10% = $1,000.06 (meter $9,000.57); the dealer's 10% =
    # $900.05 divided between seats 5 and 3: $450.03 (the odd cent, seat 5 first) and $450.02.
    own_then_dealer(PA).then(
        pays(hit(5, "1000.06", on="own"), hit(5, "450.03"), hit(3, "450.02")),
        meter_is("tcp-five-card-bonus", "8100.52"),
    )


def test_dealer_hand_before_the_first_wagerers_own_hand() -> None:
    # first_wagerer_before_own: the dealer's $1,000.06 divided, $500.03 each (meter $9,000.57);
    # then seat 5's own 10% of $9,000.57 = $900.05; meter $8,100.52.
    config = with_policy(PA, "dealer_hand_turn", "first_wagerer_before_own")
    own_then_dealer(config).then(
        pays(hit(5, "500.03", on="dealer"), hit(3, "500.03"), hit(5, "900.05", on="own")),
        meter_is("tcp-five-card-bonus", "8100.52"),
    )
