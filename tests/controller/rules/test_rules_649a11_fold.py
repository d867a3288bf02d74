"""58 Pa. Code 649a.11(b): what a fold forfeits.

(b)(2): a player with an Ante and a Three or Five-Card Progressive Payout Wager who does not make a
Play Wager forfeits both, "but may not forfeit the eligibility to receive an Envy Bonus";
(b)(3): the Five Card Hand Bonus and 5 of 6 Progressive Payout Wager are not forfeited.
"""

from __future__ import annotations

from tests.controller.scenario import (
    PA,
    Scenario,
    envy,
    fixed,
    fold,
    given,
    hit,
    locked_round,
    meter_is,
    pays,
    pays_nothing,
    play,
    rejected,
    settled,
    wager,
)

DEALER = "2c 5d 8s"


def folded_with(kind: str, *others: int) -> Scenario:
    """Seat 3 antes, wagers ``kind`` and folds; ``others`` ante, wager ``kind`` and play."""
    wagers = [wager(3, "ante", "1.00"), wager(3, kind, "1.00")]
    for seat in others:
        wagers += [wager(seat, "ante", "1.00"), wager(seat, kind, "1.00")]
    scenario = given().events(*locked_round("tcp-1", "r1", *wagers), fold(3))
    return scenario.events(*(play(seat, "1.00") for seat in others))


def test_a_fold_forfeits_the_progressive_payout_wager() -> None:
    # 649a.11(b)(2): A-K-Q of spades in a folded hand wins nothing; the contribution stays.
    folded_with("progressive").when(settled(dealer=DEALER, seats={3: "As Ks Qs"})).then(
        pays_nothing(), meter_is("tcp-progressive", "1000.14")
    )


def test_a_fold_forfeits_the_five_card_progressive_payout_wager() -> None:
    # 649a.11(b)(2): a folded royal flush wins nothing from the Five-Card meter.
    folded_with("five_card_progressive").when(
        settled(dealer=DEALER, community="Jh Th", seats={3: "Ah Kh Qh"})
    ).then(pays_nothing(), meter_is("tcp-five-card", "10000.21"))


def test_a_fold_keeps_the_five_card_hand_bonus() -> None:
    # 649a.11(b)(3): the Five Card Hand Bonus survives the fold: the royal takes $10,000.21.
    folded_with("five_card_hand_bonus").when(
        settled(dealer=DEALER, community="Jh Th", seats={3: "Ah Kh Qh"})
    ).then(pays(hit(3, "10000.21")), meter_is("tcp-five-card-bonus", "0.08", reserve="0"))


def test_a_fold_keeps_the_five_of_six_wager() -> None:
    # 649a.11(b)(3): the 5 of 6 wager survives the fold: royal of spades takes $10,000.28.
    folded_with("five_of_six_progressive").when(
        settled(dealer="Js Ts 4d", seats={3: "As Ks Qs"})
    ).then(pays(hit(3, "10000.28")), meter_is("tcp-five-of-six", "10000.00"))


def test_a_fold_keeps_a_fixed_five_card_hand_bonus() -> None:
    # 649a.11(b)(3): a folded flush still pays 50 for 1.
    folded_with("five_card_hand_bonus").when(
        settled(dealer=DEALER, community="Jd 6d", seats={3: "Kd 9d 4d"})
    ).then(pays(fixed(3, "50.00", hand="flush")))


def test_a_fold_keeps_the_envy_bonus() -> None:
    # 649a.11(b)(2) with 649a.12(e)(1), (5): seat 5 plays A-K-Q of spades (100% of $1,000.28);
    # folded seat 3 still gets the $100 Envy Bonus.
    folded_with("progressive", 5).when(
        settled(dealer=DEALER, seats={3: "2h 3h 9c", 5: "As Ks Qs"})
    ).then(pays(hit(5, "1000.28"), envy(3, "100.00", holder=5)))


def test_a_fold_keeps_the_five_card_envy_bonus() -> None:
    # 649a.11(b)(2) with 649a.12(h)(5): folded seat 3 gets $1,000 for seat 5's royal flush.
    folded_with("five_card_progressive", 5).when(
        settled(dealer=DEALER, community="Jh Th", seats={3: "2h 3c 9c", 5: "Ah Kh Qh"})
    ).then(pays(hit(5, "10000.42"), envy(3, "1000.00", holder=5)))


def test_decisions_are_locked_in() -> None:
    # 649a.11(b): the player either plays or forfeits; a second decision is refused.
    folded_with("progressive").when(play(3, "1.00")).then(rejected("already decided"))


def test_the_play_wager_equals_the_ante() -> None:
    # 649a.11(b): "a Play Wager in an amount equal to the player's Ante Wager".
    given().events(
        *locked_round("tcp-1", "r1", wager(2, "ante", "5.00"), wager(2, "progressive", "1.00"))
    ).when(play(2, "1.00")).then(rejected("does not match the ante"))


def test_only_a_player_with_an_ante_decides() -> None:
    # 649a.11(b): the dealer asks "each player who placed an Ante Wager".
    given().events(*locked_round("tcp-1", "r1", wager(2, "progressive", "1.00"))).when(
        fold(2)
    ).then(rejected("placed no ante"))


def test_a_folded_hand_holds_no_envy_for_others_by_default() -> None:
    # 649a.11(c): folded hands are collected before the reveal, so seat 3's folded A-K-Q of spades
    # is no Envy Bonus Qualifying Hand for seat 5 (policy folded_hands_hold_envy = false).
    folded_with("progressive", 5).when(
        settled(dealer=DEALER, seats={3: "As Ks Qs", 5: "2h 3h 9c"})
    ).then(pays_nothing(), meter_is("tcp-progressive", "1000.28"))


def test_with_the_policy_a_folded_hand_holds_envy_for_others() -> None:
    # The operator may choose the other reading: seat 5 then gets $100 for seat 3's folded hand
    # (649a.12(e)(5), $1 wager), and seat 3 still wins nothing on its own wager.
    text = PA.replace("folded_hands_hold_envy = false", "folded_hands_hold_envy = true")
    assert text != PA
    wagers = [wager(seat, kind, "1.00") for seat in (3, 5) for kind in ("ante", "progressive")]
    scenario = given(text).events(*locked_round("tcp-1", "r1", *wagers), fold(3), play(5, "1.00"))
    scenario.when(settled(dealer=DEALER, seats={3: "As Ks Qs", 5: "2h 3h 9c"})).then(
        pays(envy(5, "100.00", holder=3))
    )


def test_a_folded_hand_with_nothing_in_play_may_be_left_out_of_the_settlement() -> None:
    # 649a.11(c): the folded hand is gone; seat 3 still receives its Envy Bonus (649a.11(b)(2)).
    folded_with("progressive", 5).when(settled(dealer=DEALER, seats={5: "As Ks Qs"})).then(
        pays(hit(5, "1000.28"), envy(3, "100.00", holder=5))
    )


def test_a_folded_hand_with_a_surviving_wager_must_be_in_the_settlement() -> None:
    # 649a.11(b)(3), (c): cards of a player with a Five Card Hand Bonus stay on the table.
    folded_with("five_card_hand_bonus", 5).when(
        settled(dealer=DEALER, community="Jd 6d", seats={5: "2h 3h 9c"})
    ).then(rejected("every seat with a wager still in play [3, 5]"))
