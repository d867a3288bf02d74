"""The Prime colour wagers: cards all red (diamonds, hearts) or all black (clubs, spades).

Colour, not rank, decides these wagers, and they survive a fold (679a.11(b), 682a.11(b)).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from controller.model.cards import Card, checked_hand

PrimeColour = Literal["none", "prime", "prime_with_dealer"]


def _one_colour(cards: Sequence[Card]) -> bool:
    """True when every card is red, or every card is black."""
    return len({card.suit.is_red for card in cards}) == 1


def three_card_prime_colour(player: Sequence[Card], dealer: Sequence[Card]) -> PrimeColour:
    """Outcome of the Three Card Prime Prime Wager (679a.11(d)(1)).

    "none" when the player's three cards are not one colour (679a.11(d)(1)(i)); "prime" when they
    are; "prime_with_dealer" when, as well, the dealer's three cards are all the colour of the
    player's (679a.11(d)(1)(ii)); the two winning outcomes pay at different odds (679a.12(d)).
    """
    players = checked_hand(player, (3,), "Three Card Prime player")
    dealers = checked_hand(dealer, (3,), "Three Card Prime dealer")
    # The six cards come from one deck; a card in both hands is a misread.
    checked_hand(players + dealers, (6,), "Three Card Prime player and dealer")
    if not _one_colour(players):
        return "none"
    if _one_colour(players + dealers):
        return "prime_with_dealer"
    return "prime"


def four_card_prime_colour(player: Sequence[Card]) -> bool:
    """Whether the Four Card Prime Prime Wager wins: four or more of the player's five cards are the
    same colour (682a.11(e)(1)(ii))."""
    hand = checked_hand(player, (5,), "Four Card Prime player")
    reds = sum(card.suit.is_red for card in hand)
    return reds >= 4 or reds <= 1
