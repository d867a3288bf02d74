"""Five-card poker hands, named for the paytables of 649a.12(f), (h), (i), (j) and Lunar Poker.

Standard poker ranking, high to low: royal flush, straight flush, four of a kind, full house, flush,
straight, three of a kind, two pair, pair, high card. A-2-3-4-5 (the wheel) is the lowest straight,
5 high; no straight wraps round. Suits never rank: royals of spades and hearts tie as hands, and
only their names differ, because 649a.12(j)(1) and (j)(5) pay the royal of spades above the
others.

Where a hand is formed from more cards (649a.12(h), (i): three cards plus two community cards;
649a.12(j) and 671a.11(d)(1)(i): best five of six), `best_five` picks the five with the highest key.

Speed: the 6,175 unsuited rank multisets and 1,287 suited ones are classified once at import into
dicts keyed by rank-count code (`controller.model.cards.hand_tables`), so evaluation is a sum and a
dict
lookup.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from controller.model.cards import (
    ACE,
    RANK_FIELD,
    Card,
    Suit,
    checked_hand,
    deck_index,
    hand_tables,
    rank_groups,
    set_out,
    straight_high,
)


class FiveCardCategory(enum.IntEnum):
    """Poker categories; a larger value ranks higher. A royal is the ace-high straight flush."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9


FiveCardKey = tuple[FiveCardCategory, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class FiveCardHand:
    """An evaluated hand: the five cards used (as set out, high to low), category and tiebreak."""

    category: FiveCardCategory
    tiebreak: tuple[int, ...]
    cards: tuple[Card, ...]

    @property
    def key(self) -> FiveCardKey:
        """Hands compare by category, then tiebreak ranks; equal keys are equal hands."""
        return self.category, self.tiebreak

    @property
    def names(self) -> tuple[str, ...]:
        """Paytable names this hand answers to, most specific first.

        Only the highest hand formed is paid (649a.12(h)(2), (i)(2), (j)(2)), so a lookup takes the
        first name its paytable lists. A royal is also a straight flush, for tables that do not list
        royals separately (Six Card Bonus paytables list both, 649a.12(f)).
        """
        generic = self.category.name.lower()
        if self.category is not FiveCardCategory.ROYAL_FLUSH:
            return (generic,)
        # 649a.12(j)(1), (j)(5): royal flush of spades; of clubs, diamonds or hearts.
        if self.cards[0].suit is Suit.SPADES:
            return ("royal_flush_of_spades", generic, "straight_flush")
        return (generic, "straight_flush")


_BY_PATTERN = {
    (4, 1): FiveCardCategory.FOUR_OF_A_KIND,
    (3, 2): FiveCardCategory.FULL_HOUSE,
    (3, 1, 1): FiveCardCategory.THREE_OF_A_KIND,
    (2, 2, 1): FiveCardCategory.TWO_PAIR,
    (2, 1, 1, 1): FiveCardCategory.PAIR,
    (1, 1, 1, 1, 1): FiveCardCategory.HIGH_CARD,
}


def _classify(ranks: tuple[int, ...], suited: bool) -> FiveCardKey:
    """Category and tiebreak of five ranks (high first), checked from the top of the ranking down.

    Ties break on the ranks in group order (quads, then kicker; trips, then pair; high pair, low
    pair, kicker; ...); a straight breaks on its top card alone, 5 for the wheel.
    """
    high = straight_high(ranks)
    if high and suited:
        if high == ACE:
            return FiveCardCategory.ROYAL_FLUSH, (high,)
        return FiveCardCategory.STRAIGHT_FLUSH, (high,)
    counts, ordered = rank_groups(ranks)
    category = _BY_PATTERN[counts]
    # A one-suit hand has five distinct ranks, so only a straight could outrank its flush.
    if suited:
        category = FiveCardCategory.FLUSH
    elif high:
        return FiveCardCategory.STRAIGHT, (high,)
    return category, ordered


_UNSUITED, _SUITED = hand_tables(5, _classify)


def _entry(hand: Sequence[Card]) -> tuple[FiveCardKey, tuple[int, ...]]:
    """(key, display places) of five distinct cards, unchecked."""
    c0, c1, c2, c3, c4 = hand
    code = (
        RANK_FIELD[c0.rank]
        + RANK_FIELD[c1.rank]
        + RANK_FIELD[c2.rank]
        + RANK_FIELD[c3.rank]
        + RANK_FIELD[c4.rank]
    )
    suit = c0.suit
    if c1.suit is suit and c2.suit is suit and c3.suit is suit and c4.suit is suit:
        return _SUITED[code]
    return _UNSUITED[code]


def five_card_key(hand: Sequence[Card]) -> FiveCardKey:
    """The key of five distinct cards, unchecked: the fast path for simulators and comparisons."""
    return _entry(hand)[0]


def _hand(five: Sequence[Card], entry: tuple[FiveCardKey, tuple[int, ...]]) -> FiveCardHand:
    """The hand object, built once for the chosen five (`best_five` compares bare keys)."""
    (category, tiebreak), places = entry
    return FiveCardHand(category, tiebreak, set_out(five, places))


def evaluate_five(cards: Sequence[Card]) -> FiveCardHand:
    """Rank exactly five distinct cards; `InvalidEvent` for a wrong count or a repeated card."""
    hand = checked_hand(cards, (5,), "five-card")
    return _hand(hand, _entry(hand))


def best_five(cards: Sequence[Card]) -> FiveCardHand:
    """The best five-card hand from 5, 6 or 7 distinct cards.

    649a.11(c)(7)-(9) and 671a.11(d)(2) have the dealer form "the highest ranking five-card Poker
    hand". When several fives share the best key (equal hands), the one with the higher cards in
    (rank, suit) order is kept, so the result never depends on the order the cards arrived in.
    """
    hand = checked_hand(cards, (5, 6, 7), "best-five")
    ordered = sorted(hand, key=deck_index, reverse=True)
    best = tuple(ordered[:5])
    best_entry = _entry(best)
    # combinations() walks from the highest cards down, so a strict ">" keeps the first of equals.
    for five in itertools.combinations(ordered, 5):
        entry = _entry(five)
        if entry[0] > best_entry[0]:
            best, best_entry = five, entry
    return _hand(best, best_entry)
