"""`controller.rules.hand_forming.form_hand` on card numbers instead of `Card` objects.

The reference parses each text to a `Card`, checks the hand through a set of cards, evaluates it
and sets it out, all on objects. Here a card is its `deck_index` (0..51), found by one dict
lookup of its lower-cased text, and the evaluation reads the reference's own classification
tables (`controller.rules.hands.three_card`, `five_card`: rank-count code -> (key, display
places)). The names come from the reference's hand classes, once per (category, tiebreak, suit of
the first card). Any text that is not a card, or a repeated card, raises `LookupError`: the
caller then lets the reference answer (it words the refusal).

Equal to the reference for every three-card hand and every pool of five or six cards
(``tests/controller/fast/test_hands.py``).
"""

from __future__ import annotations

import itertools
from typing import Any

from controller.model.cards import _BY_TEXT, FULL_DECK, RANK_FIELD, deck_index
from controller.rules.hand_forming import FormedHand
from controller.rules.hands import five_card, three_card

_INDEX: dict[str, int] = {text: deck_index(card) for text, card in _BY_TEXT.items()}
_FIELD = tuple(RANK_FIELD[card.rank] for card in FULL_DECK)
_RANK = tuple(card.rank for card in FULL_DECK)
_SUIT = tuple(int(card.suit) for card in FULL_DECK)
_TEXT = tuple(str(card) for card in FULL_DECK)
_NAMES: dict[tuple[int, int], tuple[str, ...]] = {}
_FORMED: dict[tuple[str, tuple[str, ...]], FormedHand] = {}
_MAX_FORMED = 32_768  # about 10 MB; a floor deals new hands, the memo serves one settlement


def clear() -> None:
    """Forget every formed hand (for measurements that must not find them already formed)."""
    _FORMED.clear()


def _indices(texts: tuple[str, ...]) -> list[int]:
    index = _INDEX
    return [index[text.lower()] for text in texts]  # KeyError: not a card


def form(
    source: str, own: tuple[str, ...], dealer: tuple[str, ...], community: tuple[str, ...]
) -> FormedHand:
    """The reference's `form_hand(source, own, dealer, community)`."""
    if source == "three_card":
        pool = own
    elif source == "five_of_six":
        pool = own + dealer
    elif source == "five_card":
        pool = own + community
    else:
        raise LookupError(source)
    known = _FORMED.get((source, pool))
    if known is not None:
        return known
    cards = _indices(pool)
    if len(set(cards)) != len(cards):
        raise LookupError("a card repeats")
    formed = _three(cards) if source == "three_card" else _best_five(cards)
    if len(_FORMED) >= _MAX_FORMED:
        _FORMED.clear()
    _FORMED[(source, pool)] = formed
    return formed


def _set_out(cards: Any, places: tuple[int, ...]) -> list[int]:
    rank, suit = _RANK, _SUIT
    return sorted(cards, key=lambda c: places[rank[c]] + suit[c], reverse=True)


def _three(cards: list[int]) -> FormedHand:
    if len(cards) != 3:
        raise LookupError("a three-card hand needs three cards")
    a, b, c = cards
    suit = _SUIT
    table = three_card._SUITED if suit[a] == suit[b] == suit[c] else three_card._UNSUITED
    entry = table[_FIELD[a] + _FIELD[b] + _FIELD[c]]
    return _formed("three", entry, cards)


def _entry(five: tuple[int, ...] | list[int]) -> tuple[Any, tuple[int, ...]]:
    a, b, c, d, e = five
    suit = _SUIT
    s = suit[a]
    code = _FIELD[a] + _FIELD[b] + _FIELD[c] + _FIELD[d] + _FIELD[e]
    if suit[b] == s and suit[c] == s and suit[d] == s and suit[e] == s:
        return five_card._SUITED[code]
    return five_card._UNSUITED[code]


def _best_five(cards: list[int]) -> FormedHand:
    """`best_five`: the five with the highest key; of equals, the first from the highest cards."""
    if len(cards) not in (5, 6, 7):
        raise LookupError("best five needs five to seven cards")
    ordered = sorted(cards, reverse=True)
    if len(ordered) == 5:
        return _formed("five", _entry(ordered), ordered)
    if len(ordered) == 6:
        return _best_of_six(ordered)
    best = tuple(ordered[:5])
    best_entry = _entry(best)
    for five in itertools.combinations(ordered, 5):
        entry = _entry(five)
        if entry[0] > best_entry[0]:
            best, best_entry = five, entry
    return _formed("five", best_entry, best)


def _best_of_six(ordered: list[int]) -> FormedHand:
    """`combinations(ordered, 5)` of six cards leaves out the last card first, then each earlier
    one in turn; each five's code is the six's code less the card left out."""
    field, suit = _FIELD, _SUIT
    code = sum(field[c] for c in ordered)
    suits = [suit[c] for c in ordered]
    flush = next((s for s in set(suits) if suits.count(s) >= 5), None)
    best_entry: Any = None
    best_out = 5
    for out in (5, 4, 3, 2, 1, 0):
        left_out = ordered[out]
        suited = flush is not None and (suits.count(flush) == 6 or suit[left_out] != flush)
        table = five_card._SUITED if suited else five_card._UNSUITED
        entry = table[code - field[left_out]]
        if best_entry is None or entry[0] > best_entry[0]:
            best_entry, best_out = entry, out
    return _formed("five", best_entry, ordered[:best_out] + ordered[best_out + 1 :])


def _formed(kind: str, entry: tuple[Any, tuple[int, ...]], cards: Any) -> FormedHand:
    shown = _set_out(cards, entry[1])
    text = _TEXT
    return FormedHand(_names(kind, entry, shown[0]), tuple([text[i] for i in shown]))


def _names(kind: str, entry: tuple[Any, tuple[int, ...]], first: int) -> tuple[str, ...]:
    """The reference hand's ``names``: they depend on the key and the first card's suit only.
    Entries are the classification tables' own tuples (they live as long as the module), so
    their identity names them."""
    lookup = (id(entry), _SUIT[first])
    names = _NAMES.get(lookup)
    if names is None:
        category, tiebreak = entry[0]
        hand_cards = (FULL_DECK[first],)  # `names` reads the first card only
        hand: Any = (
            three_card.ThreeCardHand(category, tiebreak, hand_cards)
            if kind == "three"
            else five_card.FiveCardHand(category, tiebreak, hand_cards)
        )
        names = _NAMES[lookup] = hand.names
    return names
