"""Three Card Poker hands (649a.6 ranking), named for the paytables of 649a.12.

Ranking, high to low: straight flush, three of a kind, straight, flush, pair, high card. A-K-Q is
the highest straight and A-2-3 the lowest (the ace plays low only there; K-A-2 is no straight).
Suits never rank: A-K-Q of spades and of hearts tie as hands; only their *names* differ, because
649a.12(c), (e)(1) and (e)(5) pay A-K-Q of spades above A-K-Q of hearts, diamonds or clubs.

Speed: every rank multiset (286 with distinct ranks, 169 with a pair or trips) is classified once at
import into dicts keyed by rank-count code (`controller.model.cards.hand_tables`).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from controller.model.cards import (
    ACE,
    RANK_FIELD,
    Card,
    Suit,
    checked_hand,
    hand_tables,
    rank_groups,
    set_out,
    straight_high,
)


class ThreeCardCategory(enum.IntEnum):
    """649a.6 categories; a larger value ranks higher."""

    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    STRAIGHT = 3
    THREE_OF_A_KIND = 4
    STRAIGHT_FLUSH = 5


ThreeCardKey = tuple[ThreeCardCategory, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class ThreeCardHand:
    """An evaluated hand: compare hands by `key`, pay them by the first name a paytable lists."""

    category: ThreeCardCategory
    tiebreak: tuple[int, ...]
    cards: tuple[Card, ...]

    @property
    def key(self) -> ThreeCardKey:
        """Hands compare by category, then tiebreak ranks; equal keys are equal hands (a push)."""
        return self.category, self.tiebreak

    @property
    def names(self) -> tuple[str, ...]:
        """Paytable names this hand answers to, most specific first.

        A paytable pays only the highest hand formed (649a.12(e)(2)), so a lookup takes the first
        name it lists. A-K-Q suited answers to "ace_king_queen_suited" in any suit, spades included,
        because a table that pays "hearts, diamonds or clubs" lists the spades name above it.
        """
        generic = self.category.name.lower()
        if self.category is not ThreeCardCategory.STRAIGHT_FLUSH or self.tiebreak != (ACE,):
            return (generic,)
        # 649a.12(c), (e)(1), (e)(5): A-K-Q of spades; A-K-Q of hearts, diamonds or clubs.
        if self.cards[0].suit is Suit.SPADES:
            return ("ace_king_queen_of_spades", "ace_king_queen_suited", generic)
        return ("ace_king_queen_suited", generic)


_BY_PATTERN = {
    (3,): ThreeCardCategory.THREE_OF_A_KIND,
    (2, 1): ThreeCardCategory.PAIR,
    (1, 1, 1): ThreeCardCategory.HIGH_CARD,
}


def _classify(ranks: tuple[int, ...], suited: bool) -> ThreeCardKey:
    """Category and tiebreak of three ranks (high first); the 649a.6 order is checked top down."""
    high = straight_high(ranks)
    if high:
        category = ThreeCardCategory.STRAIGHT_FLUSH if suited else ThreeCardCategory.STRAIGHT
        return category, (high,)
    counts, ordered = rank_groups(ranks)
    if suited:
        return ThreeCardCategory.FLUSH, ordered
    return _BY_PATTERN[counts], ordered


_UNSUITED, _SUITED = hand_tables(3, _classify)


def _entry(hand: Sequence[Card]) -> tuple[ThreeCardKey, tuple[int, ...]]:
    """(key, display places) of three distinct cards, unchecked."""
    c0, c1, c2 = hand
    code = RANK_FIELD[c0.rank] + RANK_FIELD[c1.rank] + RANK_FIELD[c2.rank]
    if c0.suit is c1.suit is c2.suit:
        return _SUITED[code]
    return _UNSUITED[code]


def three_card_key(hand: Sequence[Card]) -> ThreeCardKey:
    """The key of three distinct cards, unchecked: the fast path for simulators and comparisons."""
    return _entry(hand)[0]


def evaluate_three(cards: Sequence[Card]) -> ThreeCardHand:
    """Rank exactly three distinct cards; `InvalidEvent` for a wrong count or a repeated card."""
    hand = checked_hand(cards, (3,), "three-card")
    (category, tiebreak), places = _entry(hand)
    return ThreeCardHand(category, tiebreak, set_out(hand, places))
