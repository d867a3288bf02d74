"""Playing cards: the 52-card deck, read from and written as two-character text ("As", "Td", "2c").

Why frozen dataclasses and not bit-packed ints (phevaluator's choice): cards cross the ingest edge
as text and live inside events, so they must print, compare and hash like values. The evaluators in
`controller.rules.hands` get their speed from the *rank-count code* below and lookup tables built at
import, not from the card representation.

Rank-count code
---------------
A multiset of ranks (how many twos, threes, ..., aces a hand holds) packs into one int: three bits
per rank, so each count 0..4 fits in its field, and adding the cards' fields
(`RANK_FIELD[card.rank]`) builds the code without carries, in any card order::

    bits   38-36 35-33 32-30 29-27 26-24 23-21 20-18 17-15 14-12 11-9  8-6   5-3   2-0
    rank     A     K     Q     J     T     9     8     7     6     5     4     3     2

    K K 5 5 2  ->  (2 << 33) + (2 << 9) + (1 << 0)

Two hands have the same code exactly when they hold the same ranks, which is all a poker ranking
needs besides "are all cards one suit"; each evaluator maps code -> (category, tiebreak) with a
dict.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from controller.model.errors import InvalidCard, InvalidEvent

RANK_CHARS = "23456789TJQKA"
"""Rank characters from two (rank 2) to ace (rank 14)."""

ACE = 14
MAX_SAME_RANK = 4

_Key = TypeVar("_Key")


class Suit(enum.IntEnum):
    """The four suits. The numeric order only makes tie choices deterministic: suits never rank."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """The lower-case letter used in card text ("c", "d", "h", "s")."""
        return "cdhs"[self]

    @property
    def is_red(self) -> bool:
        """Diamonds and hearts are red; the Prime colour wagers (679a.11(d)(1), 682a.11(e)(1))."""
        return self in (Suit.DIAMONDS, Suit.HEARTS)


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card: rank 2..14 (ace is 14, low aces are the evaluators' business) and a suit.

    Ordering is by rank then suit; it exists so that sorting and tie choices are deterministic.
    """

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        # A bad card must be refused where it is made, not where a paytable is read.
        if type(self.rank) is not int or not 2 <= self.rank <= ACE:
            msg = f"Card rank {self.rank!r} is not a rank: expected an int from 2 to 14 (ace is 14)"
            raise InvalidCard(msg)
        if not isinstance(self.suit, Suit):
            msg = f"Card suit {self.suit!r} is not a suit: expected a Suit (CLUBS..SPADES)"
            raise InvalidCard(msg)

    def __hash__(self) -> int:
        # Replaces the generated hash((rank, suit)): cheaper, and the evaluators hash every hand's
        # cards to find repeats. Equal cards still hash equal.
        return deck_index(self)

    def __str__(self) -> str:
        return RANK_CHARS[self.rank - 2] + self.suit.letter

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read "As", "AS", "as", "Td" or "10d" (10 is an alias of T); refuse anything else.

        Surrounding spaces are refused too: the edge should hand over clean tokens, and a lenient
        parser would hide a malformed feed.
        """
        card = _BY_TEXT.get(text.lower()) if isinstance(text, str) else None
        if card is None:
            msg = (
                f"{text!r} is not a card: expected a rank (2-9, T or 10, J, Q, K, A) followed by "
                "a suit (c, d, h, s), e.g. 'As', 'Td', '10d'"
            )
            raise InvalidCard(msg)
        return card


def deck_index(card: Card) -> int:
    """Position 0..51 in `FULL_DECK`: a plain-int sort key in the same order as the cards."""
    return (card.rank - 2) * 4 + card.suit


FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in range(2, ACE + 1) for suit in Suit)
"""The 52 cards in ascending (rank, suit) order."""


def _text_table() -> dict[str, Card]:
    """Lower-cased text -> card, so parsing is one dict lookup and returns shared instances."""
    table = {str(card).lower(): card for card in FULL_DECK}
    table.update({"10" + suit.letter: Card(10, suit) for suit in Suit})
    return table


_BY_TEXT = _text_table()


def parse_cards(texts: Sequence[str]) -> tuple[Card, ...]:
    """Parse several card texts; the first bad one raises `InvalidCard` naming it."""
    if isinstance(texts, str):
        msg = f"expected a list of card texts such as ['As', 'Kd'], got the single string {texts!r}"
        raise InvalidCard(msg)
    return tuple(Card.parse(text) for text in texts)


def show(cards: Iterable[Card]) -> str:
    """Cards as space-separated text, for error messages and logs."""
    return " ".join(str(card) for card in cards)


def checked_hand(cards: Sequence[Card], sizes: tuple[int, ...], what: str) -> tuple[Card, ...]:
    """The cards as a tuple, or `InvalidEvent` if the count is not in `sizes` or a card repeats.

    One deck is in play (649a, 671a, 679a, 682a), so a repeated card means a misread or a bad feed.
    """
    hand = tuple(cards)
    if len(hand) not in sizes:
        expected = " or ".join(str(size) for size in sizes)
        msg = f"a {what} hand needs {expected} cards, got {len(hand)}: [{show(hand)}]"
        raise InvalidEvent(msg)
    if len(set(hand)) != len(hand):
        repeated = sorted({card for card in hand if hand.count(card) > 1})
        msg = (
            f"a {what} hand repeats {show(repeated)} in [{show(hand)}]: "
            "one deck is dealt, so each card can appear only once"
        )
        raise InvalidEvent(msg)
    return hand


RANK_FIELD: tuple[int, ...] = (0, 0, *(1 << 3 * (rank - 2) for rank in range(2, ACE + 1)))
"""`RANK_FIELD[rank]` is the rank-count code of one card of that rank (see the module docstring)."""


def rank_code(ranks: Iterable[int]) -> int:
    """The rank-count code of some ranks (the sum of their fields)."""
    return sum(RANK_FIELD[rank] for rank in ranks)


def rank_count(code: int, rank: int) -> int:
    """How many cards of `rank` the rank-count `code` holds."""
    return (code >> 3 * (rank - 2)) & 0b111


def rank_multisets(size: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of `size` ranks one deck can deal (each rank at most 4 times), high first."""
    for ranks in itertools.combinations_with_replacement(range(ACE, 1, -1), size):
        if all(ranks.count(rank) <= MAX_SAME_RANK for rank in set(ranks)):
            yield ranks


def rank_groups(ranks: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(counts, ranks) of the distinct ranks, bigger groups first, then higher ranks.

    This is the poker tie-break order: K K K 5 5 -> ((3, 2), (13, 5)); A 9 9 4 2 -> ((2, 1, 1, 1),
    (9, 14, 4, 2)).
    """
    groups = sorted(((ranks.count(rank), rank) for rank in set(ranks)), reverse=True)
    return tuple(count for count, _ in groups), tuple(rank for _, rank in groups)


def straight_high(ranks: Sequence[int]) -> int:
    """The top rank if the distinct `ranks` (high first) run in sequence, else 0.

    An ace also plays low below the two (A-2-3, A-2-3-4, A-2-3-4-5), and that straight is then the
    lowest one, topped by its highest low card; no straight wraps round (K-A-2 is not one).
    """
    size = len(ranks)
    if len(set(ranks)) != size:
        return 0
    if ranks[0] - ranks[-1] == size - 1:
        return ranks[0]
    if tuple(ranks) == (ACE, *range(size, 1, -1)):
        return size
    return 0


def display_places(ranks: Sequence[int]) -> tuple[int, ...]:
    """Per rank (index 0..14), a sort weight that sets cards out as a dealer would.

    Bigger rank groups come first, then higher ranks: K K K 5 5 stays trips-then-pair, A-9-9-4-2
    shows 9 9 A 4 2, and a low-ace straight shows the ace last (5 4 3 2 A). Weights step by 4 so
    that adding the suit breaks the remaining ties.
    """
    ace_low = straight_high(ranks) == len(ranks)
    places = [0] * (ACE + 1)
    for rank in set(ranks):
        shown = 1 if ace_low and rank == ACE else rank
        places[rank] = (ranks.count(rank) * 16 + shown) * 4
    return tuple(places)


def set_out(hand: Iterable[Card], places: Sequence[int]) -> tuple[Card, ...]:
    """The cards in `display_places` order, which never depends on the order they arrived in."""
    return tuple(sorted(hand, key=lambda card: places[card.rank] + card.suit, reverse=True))


def hand_tables(
    size: int, classify: Callable[[tuple[int, ...], bool], _Key]
) -> tuple[dict[int, tuple[_Key, tuple[int, ...]]], dict[int, tuple[_Key, tuple[int, ...]]]]:
    """(unsuited, suited) tables: rank-count code -> (key, display places), built at import.

    `classify(ranks, suited)` gets the ranks high first. Evaluating a hand is then a sum of
    `RANK_FIELD`s, a same-suit test and one dict lookup. The suited table holds only distinct ranks:
    cards of one suit cannot pair.
    """
    unsuited: dict[int, tuple[_Key, tuple[int, ...]]] = {}
    suited: dict[int, tuple[_Key, tuple[int, ...]]] = {}
    for ranks in rank_multisets(size):
        code = rank_code(ranks)
        places = display_places(ranks)
        unsuited[code] = (classify(ranks, False), places)
        if len(set(ranks)) == size:
            suited[code] = (classify(ranks, True), places)
    return unsuited, suited
