"""Three Card Poker evaluation (649a.6 ranking; names for 649a.12 paytables)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from math import comb

import pytest
from hypothesis import given

from controller.model.cards import FULL_DECK, Card, Suit, parse_cards
from controller.model.errors import InvalidEvent
from controller.rules.hands.three_card import (
    ThreeCardCategory,
    ThreeCardHand,
    evaluate_three,
    three_card_key,
)
from tests.strategies_cards import hands

C = ThreeCardCategory

# A textbook evaluator, written independently of the module under test: (category, tiebreak).
_SHAPES = {(3,): C.THREE_OF_A_KIND, (2, 1): C.PAIR, (1, 1, 1): C.HIGH_CARD}
_RUNS: dict[tuple[int, ...], int] = {(top, top - 1, top - 2): top for top in range(4, 15)}
_RUNS[(14, 3, 2)] = 3


def reference_three(hand: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    ranks = tuple(sorted((card.rank for card in hand), reverse=True))
    counts = Counter(ranks)
    by_group = tuple(dict.fromkeys(sorted(ranks, key=lambda r: (counts[r], r), reverse=True)))
    suited = len({card.suit for card in hand}) == 1
    top = _RUNS.get(ranks, 0)
    if top:
        return (C.STRAIGHT_FLUSH if suited else C.STRAIGHT), (top,)
    if suited:
        return C.FLUSH, by_group
    return _SHAPES[tuple(sorted(counts.values(), reverse=True))], by_group


def three(text: str) -> ThreeCardHand:
    return evaluate_three(parse_cards(text.split()))


def test_exhaustive_category_counts_over_all_22100_hands() -> None:
    categories: Counter[ThreeCardCategory] = Counter()
    names: Counter[str] = Counter()
    keys: dict[ThreeCardCategory, set[tuple[int, ...]]] = {category: set() for category in C}
    for cards in itertools.combinations(FULL_DECK, 3):
        hand = evaluate_three(cards)
        categories[hand.category] += 1
        names.update(hand.names)
        keys[hand.category].add(hand.tiebreak)
    assert sum(categories.values()) == comb(52, 3) == 22_100
    assert categories == {
        C.STRAIGHT_FLUSH: 48,
        C.THREE_OF_A_KIND: 52,
        C.STRAIGHT: 720,
        C.FLUSH: 1_096,
        C.PAIR: 3_744,
        C.HIGH_CARD: 16_440,
    }
    assert names["ace_king_queen_of_spades"] == 1
    assert names["ace_king_queen_suited"] == 4
    assert names["straight_flush"] == 48
    # Distinct hands per category, derived: 12 runs (A-2-3 .. Q-K-A), C(13,3) rank sets.
    runs, rank_sets = 12, comb(13, 3)
    assert {category: len(tiebreaks) for category, tiebreaks in keys.items()} == {
        C.STRAIGHT_FLUSH: runs,
        C.THREE_OF_A_KIND: 13,
        C.STRAIGHT: runs,
        C.FLUSH: rank_sets - runs,
        C.PAIR: 13 * 12,
        C.HIGH_CARD: rank_sets - runs,
    }


@given(hands(3))
def test_matches_a_textbook_evaluator(cards: tuple[Card, ...]) -> None:
    hand = evaluate_three(cards)
    assert hand.key == reference_three(cards)
    assert three_card_key(cards) == hand.key


@given(hands(3), hands(3), hands(3))
def test_ordering_is_total_and_consistent(
    a: tuple[Card, ...], b: tuple[Card, ...], c: tuple[Card, ...]
) -> None:
    ka, kb, kc = (evaluate_three(cards).key for cards in (a, b, c))
    assert [ka < kb, ka == kb, ka > kb].count(True) == 1
    if ka <= kb <= kc:
        assert ka <= kc
    # Same ordering as the textbook evaluator.
    ra, rb = reference_three(a), reference_three(b)
    assert (ka < kb, ka == kb) == (ra < rb, ra == rb)
    # A higher category always wins, whatever the ranks.
    if ka[0] > kb[0]:
        assert ka > kb


@given(hands(3))
def test_evaluation_ignores_card_order(cards: tuple[Card, ...]) -> None:
    results = {evaluate_three(perm) for perm in itertools.permutations(cards)}
    assert len(results) == 1
    assert sorted(results.pop().cards) == sorted(cards)


@given(hands(3))
def test_suits_do_not_rank(cards: tuple[Card, ...]) -> None:
    rotated = tuple(Card(card.rank, Suit((card.suit + 1) % 4)) for card in cards)
    assert evaluate_three(rotated).key == evaluate_three(cards).key


def test_ace_king_queen_names_by_suit() -> None:
    assert three("As Ks Qs").names == (
        "ace_king_queen_of_spades",
        "ace_king_queen_suited",
        "straight_flush",
    )
    for suit in "hdc":
        assert three(f"A{suit} K{suit} Q{suit}").names == (
            "ace_king_queen_suited",
            "straight_flush",
        )
    assert three("5d 4d 3d").names == ("straight_flush",)
    assert three("As Ks Qd").names == ("straight",)


def test_a_2_3_is_the_lowest_straight_and_shows_its_ace_last() -> None:
    low = three("2d As 3c")
    assert low.category is C.STRAIGHT
    assert low.tiebreak == (3,)
    assert [str(card) for card in low.cards] == ["3c", "2d", "As"]
    assert low.key < three("2c 3d 4h").key < three("Kc Qd Jh").key < three("Ac Kd Qh").key


def test_queen_high_is_the_dealer_qualifier_boundary() -> None:
    # 649a.11(c)(3)(i): the dealer qualifies with queen high or better.
    queen_high = three("Qs 3d 2c")
    assert queen_high.category is C.HIGH_CARD
    assert three("Jh Td 8c").key < queen_high.key < three("Qh 4c 2d").key


def test_cards_are_set_out_pair_first() -> None:
    hand = three("3c Kd 3s")
    assert [str(card) for card in hand.cards] == ["3s", "3c", "Kd"]
    assert hand.tiebreak == (3, 13)


@pytest.mark.parametrize(
    ("texts", "reason"),
    [
        (["As", "Ks"], "needs 3 cards, got 2"),
        (["As", "Ks", "Qs", "Js"], "needs 3 cards, got 4"),
        (["As", "As", "Ks"], "repeats As"),
        ([], "needs 3 cards, got 0"),
    ],
)
def test_refuses_wrong_counts_and_repeated_cards(texts: list[str], reason: str) -> None:
    with pytest.raises(InvalidEvent, match=reason):
        evaluate_three(parse_cards(texts))
