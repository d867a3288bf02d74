"""Hypothesis strategies for cards and hands (to be merged into `tests/strategies.py`)."""

from __future__ import annotations

from hypothesis import strategies as st

from controller.model.cards import FULL_DECK, Card

cards: st.SearchStrategy[Card] = st.sampled_from(FULL_DECK)
"""Any one of the 52 cards."""


def hands(min_size: int, max_size: int | None = None) -> st.SearchStrategy[tuple[Card, ...]]:
    """Distinct cards from one deck: `min_size` to `max_size` of them (`min_size` if no max)."""
    top = min_size if max_size is None else max_size
    return st.lists(cards, min_size=min_size, max_size=top, unique=True).map(tuple)


def disjoint_hands(*sizes: int) -> st.SearchStrategy[tuple[tuple[Card, ...], ...]]:
    """Several hands dealt from the same deck (no card in two hands), of the given sizes."""

    def split(deal: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
        parts: list[tuple[Card, ...]] = []
        start = 0
        for size in sizes:
            parts.append(deal[start : start + size])
            start += size
        return tuple(parts)

    return hands(sum(sizes)).map(split)
