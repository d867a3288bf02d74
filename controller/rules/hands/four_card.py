"""Four-card poker hands for Four Card Prime (682a): the best four cards of the player's five.

682a.11(d) compares "the player's four card hand to the dealer's four card hand" and defers the
ranking to 682a.6(b), which is not among our rule texts. ASSUMPTION (to confirm against 682a.6): the
standard Four Card Poker ranking, high to low: four of a kind, straight flush, three of a kind,
flush, straight, two pair, pair, high card. A-2-3-4 is the lowest straight (4 high), A-K-Q-J the
highest; no straight wraps round. Suits never rank.

Speed: rank multisets are classified once at import into dicts keyed by rank-count code
(`controller.model.cards.hand_tables`).
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from controller.model.cards import (
    RANK_FIELD,
    Card,
    checked_hand,
    deck_index,
    hand_tables,
    rank_groups,
    set_out,
    straight_high,
)


class FourCardCategory(enum.IntEnum):
    """Four Card Poker categories (assumed 682a.6(b) order); a larger value ranks higher."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    STRAIGHT = 3
    FLUSH = 4
    THREE_OF_A_KIND = 5
    STRAIGHT_FLUSH = 6
    FOUR_OF_A_KIND = 7


FourCardKey = tuple[FourCardCategory, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class FourCardHand:
    """An evaluated hand: the four cards used (as set out, high to low), category and tiebreak."""

    category: FourCardCategory
    tiebreak: tuple[int, ...]
    cards: tuple[Card, ...]

    @property
    def key(self) -> FourCardKey:
        """Hands compare by category, then tiebreak ranks; equal keys are equal hands."""
        return self.category, self.tiebreak

    @property
    def names(self) -> tuple[str, ...]:
        """Paytable names this hand answers to; four-card paytables name categories only."""
        return (self.category.name.lower(),)


_BY_PATTERN = {
    (4,): FourCardCategory.FOUR_OF_A_KIND,
    (3, 1): FourCardCategory.THREE_OF_A_KIND,
    (2, 2): FourCardCategory.TWO_PAIR,
    (2, 1, 1): FourCardCategory.PAIR,
    (1, 1, 1, 1): FourCardCategory.HIGH_CARD,
}


def _classify(ranks: tuple[int, ...], suited: bool) -> FourCardKey:
    """Category and tiebreak of four ranks (high first); ties break on ranks in group order."""
    high = straight_high(ranks)
    if high:
        category = FourCardCategory.STRAIGHT_FLUSH if suited else FourCardCategory.STRAIGHT
        return category, (high,)
    counts, ordered = rank_groups(ranks)
    # A one-suit hand has four distinct ranks, so it is a flush unless it was a straight flush.
    if suited:
        return FourCardCategory.FLUSH, ordered
    return _BY_PATTERN[counts], ordered


_UNSUITED, _SUITED = hand_tables(4, _classify)


def _entry(hand: Sequence[Card]) -> tuple[FourCardKey, tuple[int, ...]]:
    """(key, display places) of four distinct cards, unchecked."""
    c0, c1, c2, c3 = hand
    code = RANK_FIELD[c0.rank] + RANK_FIELD[c1.rank] + RANK_FIELD[c2.rank] + RANK_FIELD[c3.rank]
    suit = c0.suit
    if c1.suit is suit and c2.suit is suit and c3.suit is suit:
        return _SUITED[code]
    return _UNSUITED[code]


def four_card_key(hand: Sequence[Card]) -> FourCardKey:
    """The key of four distinct cards, unchecked: the fast path for `best_four` and simulators."""
    return _entry(hand)[0]


def best_four(cards: Sequence[Card]) -> FourCardHand:
    """The best four-card hand from 4, 5 or 6 distinct cards (682a.11(d): player's five cards).

    When several fours share the best key, the one with the higher cards in (rank, suit) order is
    kept, so the result never depends on the order the cards arrived in.
    """
    hand = checked_hand(cards, (4, 5, 6), "best-four")
    ordered = sorted(hand, key=deck_index, reverse=True)
    best = tuple(ordered[:4])
    best_entry = _entry(best)
    # combinations() walks from the highest cards down, so a strict ">" keeps the first of equals.
    for four in itertools.combinations(ordered, 4):
        entry = _entry(four)
        if entry[0] > best_entry[0]:
            best, best_entry = four, entry
    (category, tiebreak), places = best_entry
    return FourCardHand(category, tiebreak, set_out(best, places))
