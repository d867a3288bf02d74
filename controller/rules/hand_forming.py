"""Forming the hand a progressive wager is judged on, from the cards at settlement.

649a.12(e): the player's three cards; (h), (i): three cards (player's or dealer's) and the two
community cards, best five; (j): the player's three and the dealer's three, best five of six. Other
games use the same sources: a Lunar Poker hand of five or six cards is judged as its best five.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from controller.model.cards import parse_cards
from controller.rules.hands.five_card import best_five
from controller.rules.hands.three_card import evaluate_three


@dataclass(frozen=True, slots=True)
class FormedHand:
    """The paytable names a hand answers to (most specific first) and the cards that make it."""

    names: tuple[str, ...]
    cards: tuple[str, ...]


@lru_cache(maxsize=8192)
def form_hand(
    source: str, own: tuple[str, ...], dealer: tuple[str, ...], community: tuple[str, ...]
) -> FormedHand:
    """The best hand of ``source`` kind ("three_card", "five_card", "five_of_six").

    Memoised: settlement forms the same hand several times (a player's own wager, then each
    other player's Envy Bonus), and the function is pure, so a cache changes nothing but speed.
    """
    if source == "three_card":
        three = evaluate_three(parse_cards(own))
        return FormedHand(three.names, tuple(str(c) for c in three.cards))
    pool = own + (dealer if source == "five_of_six" else community)
    five = best_five(parse_cards(pool))
    return FormedHand(five.names, tuple(str(c) for c in five.cards))
