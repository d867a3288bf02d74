"""Deals for the stateful machine: a shuffled deck, often rigged so that the jackpot hands of
649a.12 (AKQ of spades, royal and straight flushes, 5 of 6 royals) actually happen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from tests.controller.stateful_table import SIZES, Forced
from tests.reference_model import (
    Deal,
)


def deal_cards(seats: Sequence[int], deck: Sequence[str], forced: Forced) -> Deal:
    """The forced cards where they were put; every other place filled from the shuffled deck."""
    used = {card for cards in forced.values() for card in cards}
    rest = iter(card for card in deck if card not in used)

    def fill(position: str, size: int) -> tuple[str, ...]:
        cards = list(forced.get(position, []))
        return tuple(cards + [next(rest) for _ in range(size - len(cards))])

    return Deal(
        dealer=fill("dealer", SIZES["dealer"]),
        community=fill("community", SIZES["community"]),
        seats={seat: fill(str(seat), 3) for seat in seats},
    )


def spell(card: str, style: int) -> str:
    """A card as devices may write it: "Th", "10h", "TH" or "10H" (schema "card")."""
    rank, suit = card[:-1], card[-1]
    rank = "10" if rank == "T" and style & 1 else rank
    return rank + (suit.upper() if style & 2 else suit)


def settlement_body(deal: Deal, style: int = 0) -> dict[str, Any]:
    """The round_settled fields of a deal, every card spelt in ``style``."""
    return {
        "dealer": [spell(c, style) for c in deal.dealer],
        "community": [spell(c, style) for c in deal.community],
        "seats": {str(s): [spell(c, style) for c in cards] for s, cards in deal.seats.items()},
    }


def _force(forced: Forced, position: str, cards: Sequence[str]) -> bool:
    """Put ``cards`` at ``position`` if none is used yet and there is room; say whether it did."""
    used = {card for held in forced.values() for card in held}
    room = SIZES.get(position, 3) - len(forced.get(position, []))
    if used & set(cards) or len(cards) > room:
        return False
    forced.setdefault(position, []).extend(cards)
    return True


def rig_akq_of_spades(data: st.DataObject, players: list[str], forced: Forced) -> None:
    """649a.12(e)(1): a player holds AKQ of spades."""
    if players:
        _force(forced, data.draw(st.sampled_from(players)), ["As", "Ks", "Qs"])


# With two community cards of one suit, each group makes a straight flush (or royal) of five.
FIVE_CARD_PATTERNS = (
    (("J", "T"), (("A", "K", "Q"), ("9", "8", "7"))),  # a royal and a jack-high straight flush
    (("J", "T"), (("K", "Q", "9"),)),
    (("3", "2"), (("A", "5", "4"),)),  # the wheel
    (("3", "2"), (("6", "5", "4"),)),
)


def rig_five_card(data: st.DataObject, players: list[str], forced: Forced) -> None:
    """649a.12(h)(1), (i)(1): up to two hands (players' or the dealer's) make five-card jackpots."""
    suit = data.draw(st.sampled_from("shdc"))
    community, groups = data.draw(st.sampled_from(FIVE_CARD_PATTERNS))
    if not _force(forced, "community", [rank + suit for rank in community]):
        return
    holders = data.draw(
        st.lists(
            st.sampled_from([*players, "dealer"]), unique=True, min_size=1, max_size=len(groups)
        )
    )
    for holder, group in zip(holders, groups, strict=False):
        _force(forced, holder, [rank + suit for rank in group])


def rig_five_of_six(data: st.DataObject, players: list[str], forced: Forced) -> None:
    """649a.12(j)(1): a player's AKQ and the dealer's J, T of one suit make a royal of six."""
    if not players:
        return
    suit = data.draw(st.sampled_from("shdc"))
    if _force(forced, "dealer", ["J" + suit, "T" + suit]):
        _force(forced, data.draw(st.sampled_from(players)), ["A" + suit, "K" + suit, "Q" + suit])


def rig_nothing(data: st.DataObject, players: list[str], forced: Forced) -> None:
    """An honest deal."""


RIGS = (rig_nothing, rig_five_card, rig_akq_of_spades, rig_five_of_six)


def rig(data: st.DataObject, seats: Sequence[int]) -> Forced:
    """Up to two rigs (or none) forced into the deal; a rig that does not fit is left out."""
    forced: Forced = {}
    players = [str(s) for s in seats]
    for chosen in data.draw(st.lists(st.sampled_from(RIGS), min_size=1, max_size=2), label="rigs"):
        chosen(data, players, forced)
    return forced


# --- refused table events, one reason each ------------------------------------------------------
