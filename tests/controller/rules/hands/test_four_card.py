"""Four Card Prime's best four of five (682a.11(d); assumed standard Four Card Poker ranking)."""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import pytest
from hypothesis import given

from controller.model.cards import FULL_DECK, Card, parse_cards
from controller.model.errors import InvalidEvent
from controller.rules.hands.four_card import (
    FourCardCategory,
    FourCardHand,
    best_four,
    four_card_key,
)
from tests.strategies_cards import hands

C = FourCardCategory


def four(text: str) -> FourCardHand:
    return best_four(parse_cards(text.split()))


def derived_counts() -> dict[FourCardCategory, int]:
    """Four-card hand counts from combinatorics, not from the evaluator."""
    runs = 11  # A-2-3-4, 2-3-4-5, ..., J-Q-K-A
    rank_sets = comb(13, 4)
    suit_patterns = 4**4
    straight_flush = runs * 4
    return {
        C.FOUR_OF_A_KIND: 13,
        C.STRAIGHT_FLUSH: straight_flush,
        C.THREE_OF_A_KIND: 13 * comb(4, 3) * 12 * 4,
        C.FLUSH: 4 * rank_sets - straight_flush,
        C.STRAIGHT: runs * suit_patterns - straight_flush,
        C.TWO_PAIR: comb(13, 2) * comb(4, 2) ** 2,
        C.PAIR: 13 * comb(4, 2) * comb(12, 2) * 4**2,
        C.HIGH_CARD: (rank_sets - runs) * (suit_patterns - 4),
    }


def test_derived_counts_cover_every_four_card_hand() -> None:
    assert sum(derived_counts().values()) == comb(52, 4) == 270_725


def test_exhaustive_category_counts_over_all_270725_hands() -> None:
    categories: Counter[FourCardCategory] = Counter()
    keys: dict[FourCardCategory, set[tuple[int, ...]]] = {category: set() for category in C}
    for cards in itertools.combinations(FULL_DECK, 4):
        hand = best_four(cards)
        categories[hand.category] += 1
        keys[hand.category].add(hand.tiebreak)
        assert hand.names == (hand.category.name.lower(),)
    assert categories == derived_counts()
    rank_sets = comb(13, 4) - 11
    assert {category: len(tiebreaks) for category, tiebreaks in keys.items()} == {
        C.FOUR_OF_A_KIND: 13,
        C.STRAIGHT_FLUSH: 11,
        C.THREE_OF_A_KIND: 13 * 12,
        C.FLUSH: rank_sets,
        C.STRAIGHT: 11,
        C.TWO_PAIR: comb(13, 2),
        C.PAIR: 13 * comb(12, 2),
        C.HIGH_CARD: rank_sets,
    }


def test_category_order_is_the_assumed_four_card_ranking() -> None:
    # Assumed 682a.6(b): quads > straight flush > trips > flush > straight > two pair > pair.
    ladder = [
        "7c 7d 7h 7s",
        "Ks Qs Js Ts",
        "2c 2d 2h 5s",
        "As Ks Qs 9s",
        "Ac Kd Qh Js",
        "Ah As Kc Kd",
        "Ah As Kc Qd",
        "Ah Kd Qc 9s",
    ]
    keys = [four(text).key for text in ladder]
    assert keys == sorted(keys, reverse=True)
    assert len(set(keys)) == len(keys)


@given(hands(5, 6))
def test_best_four_is_at_least_every_four_subset(cards: tuple[Card, ...]) -> None:
    best = best_four(cards)
    subset_keys = [four_card_key(sub) for sub in itertools.combinations(cards, 4)]
    assert best.key == max(subset_keys)
    assert set(best.cards) <= set(cards)
    assert best_four(best.cards) == best


@given(hands(4, 6))
def test_best_four_does_not_depend_on_card_order(cards: tuple[Card, ...]) -> None:
    assert best_four(cards) == best_four(tuple(reversed(cards))) == best_four(sorted(cards))


def test_a_2_3_4_is_the_lowest_straight_and_no_straight_wraps() -> None:
    low = four("4s Ac 3h 2d 9c")
    assert low.key == (C.STRAIGHT, (4,))
    assert [str(card) for card in low.cards] == ["4s", "3h", "2d", "Ac"]
    assert low.key < four("2c 3d 4h 5s").key < four("Ac Kd Qh Js").key
    assert four("Kc Ad 2h 3s 8c").category is C.HIGH_CARD


def test_trips_beat_a_four_card_flush_among_six_cards() -> None:
    hand = four("9c 9d 9h 2h 5h Kh")
    assert hand.category is C.THREE_OF_A_KIND
    assert hand.tiebreak == (9, 13)


@pytest.mark.parametrize(
    ("texts", "reason"),
    [
        (["As", "Ks", "Qs"], "needs 4 or 5 or 6 cards, got 3"),
        (["As", "Ks", "Qs", "Js", "Ts", "9s", "8s"], "got 7"),
        (["As", "Ks", "Qs", "Js", "Ks"], "repeats Ks"),
    ],
)
def test_refuses_wrong_counts_and_repeats(texts: list[str], reason: str) -> None:
    with pytest.raises(InvalidEvent, match=reason):
        best_four(parse_cards(texts))
