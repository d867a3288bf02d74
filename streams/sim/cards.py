"""The simulator's deck and the rough hand reading its simulated players use to decide.

The strategy helpers are deliberately small and local (the controller's evaluator in
`controller.rules.hands` is the authority on ranks); they only need to make folds look like a real
floor's.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from controller.model.errors import InvariantViolation
from streams.sim.settings import ALL_CARDS, RANKS, ForcedDeal


class Shoe:
    """One 52-card deck for one round, shuffled by the injected RNG (Fisher-Yates in `shuffle`).

    Cards of a forced deal are taken out before anything is dealt, so every card of a round is
    distinct whether or not the round was forced.
    """

    __slots__ = ("_cards",)

    def __init__(self, rng: random.Random, forced: ForcedDeal | None = None) -> None:
        cards = list(ALL_CARDS)
        rng.shuffle(cards)
        if forced is not None:
            taken = {*forced.seat, *forced.dealer, *forced.community}
            cards = [card for card in cards if card not in taken]
        self._cards = cards

    @property
    def remaining(self) -> int:
        return len(self._cards)

    def draw(self, count: int) -> list[str]:
        """Deal `count` cards off the top; an empty shoe is a bug in a round script."""
        if count > len(self._cards):
            msg = f"shoe has {len(self._cards)} cards, {count} asked: the round script overdeals"
            raise InvariantViolation(msg)
        dealt, self._cards = self._cards[:count], self._cards[count:]
        return dealt


def _values(cards: Sequence[str]) -> list[int]:
    return sorted((RANKS.index(card[0]) + 2 for card in cards), reverse=True)


def _has_pair(cards: Sequence[str]) -> bool:
    return max(Counter(card[0] for card in cards).values()) >= 2


def _is_flush(cards: Sequence[str]) -> bool:
    return len({card[1] for card in cards}) == 1


def _is_straight(cards: Sequence[str]) -> bool:
    values = _values(cards)
    if len(set(values)) != len(values):
        return False
    wheel = [14, *range(len(values), 1, -1)]  # A-2-3 (three cards) or A-2-3-4-5 (five)
    return values[0] - values[-1] == len(values) - 1 or values == wheel


def three_card_plays(cards: Sequence[str]) -> bool:
    """The usual Three Card Poker / Three Card Prime strategy: play Q-6-4 or better, else fold."""
    if _has_pair(cards) or _is_flush(cards) or _is_straight(cards):
        return True
    return _values(cards) >= [12, 6, 4]


def lunar_instant(cards: Sequence[str]) -> bool:
    """A dealt straight flush or royal: paid at once, no Bet Wager allowed (671a.11(b)(2))."""
    return len(cards) == 5 and _is_flush(cards) and _is_straight(cards)


def lunar_bets(cards: Sequence[str]) -> bool:
    """Bet a pair or better, ace-king (the dealer's qualifier, 671a.11(f)), flush or straight."""
    if _has_pair(cards):
        return True
    ranks = {card[0] for card in cards}
    if {"A", "K"} <= ranks:
        return True
    return len(cards) == 5 and (_is_flush(cards) or _is_straight(cards))


def lunar_discards(cards: Sequence[str]) -> list[str]:
    """Cards a drawing Lunar player throws away: those below a queen, two to five of them."""
    low_first = sorted(cards, key=lambda card: RANKS.index(card[0]))
    low = sum(1 for card in cards if RANKS.index(card[0]) < RANKS.index("Q"))
    return low_first[: min(5, max(2, low))]


def four_card_raise(cards: Sequence[str]) -> int:
    """Raise multiple (0 = fold) for Four Card Prime, 1-3x Ante per 682a.11(b)."""
    tally = Counter(card[0] for card in cards)
    top_rank, top = max(tally.items(), key=lambda item: (item[1], RANKS.index(item[0])))
    if top >= 3:
        return 3
    two_pair = sorted(tally.values())[-2:] == [2, 2]
    if top == 2 and (two_pair or RANKS.index(top_rank) >= RANKS.index("T")):
        return 2
    if top == 2 or _values(cards)[0] >= 13:
        return 1
    return 0
