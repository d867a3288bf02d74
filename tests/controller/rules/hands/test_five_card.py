"""Five-card poker evaluation and best five of six or seven (649a.12(f), (h)-(j); 671a)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from math import comb

import pytest
from hypothesis import given

from controller.model.cards import FULL_DECK, Card, Suit, parse_cards
from controller.model.errors import InvalidEvent
from controller.rules.hands.five_card import (
    FiveCardCategory,
    FiveCardHand,
    best_five,
    evaluate_five,
    five_card_key,
)
from tests.strategies_cards import hands

C = FiveCardCategory

# A textbook evaluator, written independently of the module under test: (category, tiebreak).
_SHAPES = {
    (4, 1): C.FOUR_OF_A_KIND,
    (3, 2): C.FULL_HOUSE,
    (3, 1, 1): C.THREE_OF_A_KIND,
    (2, 2, 1): C.TWO_PAIR,
    (2, 1, 1, 1): C.PAIR,
    (1, 1, 1, 1, 1): C.HIGH_CARD,
}
_RUNS: dict[tuple[int, ...], int] = {tuple(range(top, top - 5, -1)): top for top in range(6, 15)}
_RUNS[(14, 5, 4, 3, 2)] = 5


def reference_five(hand: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    ranks = tuple(sorted((card.rank for card in hand), reverse=True))
    counts = Counter(ranks)
    by_group = tuple(dict.fromkeys(sorted(ranks, key=lambda r: (counts[r], r), reverse=True)))
    suited = len({card.suit for card in hand}) == 1
    shape = _SHAPES[tuple(sorted(counts.values(), reverse=True))]
    top = _RUNS.get(ranks, 0)
    if top and suited:
        return (C.ROYAL_FLUSH if top == 14 else C.STRAIGHT_FLUSH), (top,)
    if shape >= C.FULL_HOUSE:
        return shape, by_group
    if suited:
        return C.FLUSH, by_group
    if top:
        return C.STRAIGHT, (top,)
    return shape, by_group


def five(text: str) -> FiveCardHand:
    return evaluate_five(parse_cards(text.split()))


@pytest.mark.slow
def test_exhaustive_category_counts_over_all_2598960_hands() -> None:
    categories: Counter[FiveCardCategory] = Counter()
    keys: dict[FiveCardCategory, set[tuple[int, ...]]] = {category: set() for category in C}
    spade_royals = 0
    for cards in itertools.combinations(FULL_DECK, 5):
        hand = evaluate_five(cards)
        categories[hand.category] += 1
        keys[hand.category].add(hand.tiebreak)
        if hand.category is C.ROYAL_FLUSH:
            spade_royals += hand.names[0] == "royal_flush_of_spades"
    assert sum(categories.values()) == comb(52, 5) == 2_598_960
    assert categories == {
        C.ROYAL_FLUSH: 4,
        C.STRAIGHT_FLUSH: 36,
        C.FOUR_OF_A_KIND: 624,
        C.FULL_HOUSE: 3_744,
        C.FLUSH: 5_108,
        C.STRAIGHT: 10_200,
        C.THREE_OF_A_KIND: 54_912,
        C.TWO_PAIR: 123_552,
        C.PAIR: 1_098_240,
        C.HIGH_CARD: 1_302_540,
    }
    assert spade_royals == 1
    # The 7,462 distinct five-card hands, per category.
    assert {category: len(tiebreaks) for category, tiebreaks in keys.items()} == {
        C.ROYAL_FLUSH: 1,
        C.STRAIGHT_FLUSH: 9,
        C.FOUR_OF_A_KIND: 13 * 12,
        C.FULL_HOUSE: 13 * 12,
        C.FLUSH: comb(13, 5) - 10,
        C.STRAIGHT: 10,
        C.THREE_OF_A_KIND: 13 * comb(12, 2),
        C.TWO_PAIR: comb(13, 2) * 11,
        C.PAIR: 13 * comb(12, 3),
        C.HIGH_CARD: comb(13, 5) - 10,
    }


@given(hands(5))
def test_matches_a_textbook_evaluator(cards: tuple[Card, ...]) -> None:
    hand = evaluate_five(cards)
    assert hand.key == reference_five(cards)
    assert five_card_key(cards) == hand.key
    assert sorted(hand.cards) == sorted(cards)


@given(hands(5), hands(5), hands(5))
def test_ordering_is_total_and_consistent(
    a: tuple[Card, ...], b: tuple[Card, ...], c: tuple[Card, ...]
) -> None:
    ka, kb, kc = (evaluate_five(cards).key for cards in (a, b, c))
    assert [ka < kb, ka == kb, ka > kb].count(True) == 1
    if ka <= kb <= kc:
        assert ka <= kc
    ra, rb = reference_five(a), reference_five(b)
    assert (ka < kb, ka == kb) == (ra < rb, ra == rb)
    if ka[0] > kb[0]:
        assert ka > kb


@given(hands(5))
def test_suits_do_not_rank(cards: tuple[Card, ...]) -> None:
    rotated = tuple(Card(card.rank, Suit((card.suit + 1) % 4)) for card in cards)
    assert evaluate_five(rotated).key == evaluate_five(cards).key


@given(hands(6, 7))
def test_best_five_is_at_least_every_five_subset(cards: tuple[Card, ...]) -> None:
    best = best_five(cards)
    subset_keys = [evaluate_five(sub).key for sub in itertools.combinations(cards, 5)]
    assert best.key == max(subset_keys)
    assert all(best.key >= key for key in subset_keys)
    assert set(best.cards) <= set(cards)
    assert evaluate_five(best.cards) == best


@given(hands(5, 7))
def test_best_five_choice_does_not_depend_on_card_order(cards: tuple[Card, ...]) -> None:
    assert best_five(cards) == best_five(tuple(reversed(cards))) == best_five(sorted(cards))


def test_best_five_of_tied_fives_keeps_the_higher_cards() -> None:
    # Board plays: A-K-Q-J-T straight with two tens; the ten of spades outranks the ten of clubs.
    hand = best_five(parse_cards(["Ah", "Kd", "Qc", "Jh", "Tc", "Ts", "2d"]))
    assert hand.category is C.STRAIGHT
    assert [str(card) for card in hand.cards] == ["Ah", "Kd", "Qc", "Jh", "Ts"]


def test_royal_names_by_suit() -> None:
    assert five("As Ks Qs Js Ts").names == (
        "royal_flush_of_spades",
        "royal_flush",
        "straight_flush",
    )
    for suit in "hdc":
        hand = five(f"A{suit} K{suit} Q{suit} J{suit} T{suit}")
        assert hand.names == ("royal_flush", "straight_flush")
        assert hand.key == five("As Ks Qs Js Ts").key


def test_wheel_is_the_lowest_straight_and_shows_its_ace_last() -> None:
    wheel = five("Ad 2c 3h 4s 5d")
    assert wheel.key == (C.STRAIGHT, (5,))
    assert [str(card) for card in wheel.cards] == ["5d", "4s", "3h", "2c", "Ad"]
    assert wheel.key < five("2d 3c 4h 5s 6d").key
    assert five("Ah 2h 3h 4h 5h").key == (C.STRAIGHT_FLUSH, (5,))


@pytest.mark.parametrize(
    ("texts", "reason"),
    [
        (["As", "Ks", "Qs", "Js"], "needs 5 cards, got 4"),
        (["As", "Ks", "Qs", "Js", "Ts", "9s"], "needs 5 cards, got 6"),
        (["As", "Ks", "Qs", "Js", "As"], "repeats As"),
    ],
)
def test_evaluate_five_refuses_wrong_counts_and_repeats(texts: list[str], reason: str) -> None:
    with pytest.raises(InvalidEvent, match=reason):
        evaluate_five(parse_cards(texts))


@pytest.mark.parametrize(
    ("texts", "reason"),
    [
        (["As", "Ks", "Qs", "Js"], "needs 5 or 6 or 7 cards, got 4"),
        (["As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s"], "got 8"),
        (["As", "Ks", "Qs", "Js", "Ts", "Ks"], "repeats Ks"),
    ],
)
def test_best_five_refuses_wrong_counts_and_repeats(texts: list[str], reason: str) -> None:
    with pytest.raises(InvalidEvent, match=reason):
        best_five(parse_cards(texts))
