"""`controller.rules.hand_forming.form_hand` on card numbers instead of `Card` objects.

The reference parses each text to a `Card`, checks the hand through a set of cards, evaluates it
and sets it out, all on objects. Here a card is its `deck_index` (0..51), found by one dict
lookup of its lower-cased text, and the evaluation reads the reference's own classification
tables (`controller.rules.hands.three_card`, `five_card`: rank-count code -> (key, display
places)). A hand is formed as a `Hand`: its paytable names at once, its cards set out only when
something reads them (`cards`: a hand that pays or qualifies for an Envy Bonus; most do neither).

The names come from the reference's hand classes, once per classification entry: they depend on
the entry and, for a few entries (A-K-Q suited, royal flushes), on the suit of the first card set
out. Whether an entry's names depend on that suit is found out the first time the entry is met
(its names asked of the reference for each of the four suits), not assumed.

`form` keeps the reference's interface (texts in, a `FormedHand` out): any text that is not a
card, or a repeated card, raises `LookupError` there. Settlement (`controller.fast.settle`) reads
the cards once per round (`indices`) and forms from numbers with `formed`.

Equal to the reference for every three-card hand and every pool of five or six cards
(``tests/controller/fast/test_hands.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, cast

from controller.model.cards import _BY_TEXT, FULL_DECK, RANK_FIELD, deck_index
from controller.rules.hand_forming import FormedHand
from controller.rules.hands import five_card, three_card

INDEX: dict[str, int] = {text: deck_index(card) for text, card in _BY_TEXT.items()}
#: Every spelling whose ``lower()`` is a key of `INDEX` and that has only ASCII letters and
#: digits ("As", "aS", "AS", "10D"...): a settlement's texts are looked up as they come, with
#: no lower-cased copy to build and hash. A text not found here (another spelling ``lower()``
#: would still accept, such as the Kelvin sign for K) makes the caller let the reference read it.
SPELLED: dict[str, int] = {
    "".join(chars): number
    for text, number in INDEX.items()
    for chars in itertools.product(*({c.lower(), c.upper()} for c in text))
}
_FIELD = tuple(RANK_FIELD[card.rank] for card in FULL_DECK)
_RANK = tuple(card.rank for card in FULL_DECK)
_SUIT = tuple(int(card.suit) for card in FULL_DECK)
_TEXT = tuple(str(card) for card in FULL_DECK)
#: A card's suit counted in a four-bit field per suit: the sum over a pool counts each suit.
_SUIT_COUNT = tuple(1 << 4 * suit for suit in _SUIT)
_FIVE_OF_A_SUIT = 0x8888  # bit 3 of a field after adding 3: that suit is held five or six times
#: id(entry[0]) -> its names if they do not depend on the first card's suit, else None. The
#: entry's key (category, tiebreak) names it, not the entry: the names read only the key, and
#: under mypyc an entry (a fixed-length tuple) is unboxed, so ``id(entry)`` would name a fresh
#: box each time (a freed box's id is reused: another entry's names). The key is one object,
#: the table's own, as long as the module lives.
_SUIT_FREE: dict[int, tuple[str, ...] | None] = {}
_BY_SUIT: dict[tuple[int, int], tuple[str, ...]] = {}
_FORMED: dict[tuple[str, tuple[str, ...]], FormedHand] = {}
_MAX_FORMED = 32_768  # about 10 MB; a floor deals new hands, the memo serves one settlement

#: A classification entry, (key, display places). The key is typed `Any` on purpose, and the
#: tables are read only through the aliases below, typed with it: mypyc unboxes a fixed-length
#: tuple type (the reference's key is one), and a key unboxed and boxed again is a new object
#: each time, with no identity for `_SUIT_FREE`; an `Any` item stays the table's own object.
Entry = tuple[Any, tuple[int, ...]]
_THREE_SUITED = cast("dict[int, Entry]", three_card._SUITED)
_THREE_UNSUITED = cast("dict[int, Entry]", three_card._UNSUITED)
_FIVE_SUITED = cast("dict[int, Entry]", five_card._SUITED)
_FIVE_UNSUITED = cast("dict[int, Entry]", five_card._UNSUITED)


#: The paytable names a hand of an unsuited classification entry (not all of its cards of one
#: suit) answers to, by hand source. ``tests/controller/fast/test_envy_suits.py`` asks the reference
#: for the names of every unsuited entry (each suit of its first card) and requires these. An
#: Envy table that lists none of them is paid only on a hand of one suit (`settle._qualifying`).
UNSUITED_NAMES: dict[str, frozenset[str]] = {
    "three_card": frozenset({"high_card", "pair", "straight", "three_of_a_kind"}),
    **dict.fromkeys(
        ("five_card", "five_of_six"),
        frozenset(
            {
                "high_card",
                "pair",
                "two_pair",
                "three_of_a_kind",
                "straight",
                "full_house",
                "four_of_a_kind",
            }
        ),
    ),
}

#: A formed hand: (paytable names, most specific first; the entry's display places; the cards
#: used). `cards` sets the cards out when something reads them.
Hand = tuple[tuple[str, ...], tuple[int, ...], Sequence[int]]


def cards(hand: Hand) -> tuple[str, ...]:
    """The hand's cards as text, set out as the reference sets them out (`set_out`)."""
    text = _TEXT
    return tuple([text[card] for card in _set_out(hand[1], hand[2])])


def _set_out(places: tuple[int, ...], used: Sequence[int]) -> list[int]:
    """`set_out`: by display place plus suit, high first. Places step by 4 and suits are 0..3,
    so every card's weight is distinct and the card can ride in its low six bits."""
    rank, suit = _RANK, _SUIT
    weights = [(places[rank[c]] + suit[c]) << 6 | c for c in used]
    weights.sort()  # then read from the end: high first
    return [weights[at] & 63 for at in range(len(weights) - 1, -1, -1)]


def _hand(kind: str, entry: Entry, used: Sequence[int]) -> Hand:
    """The hand of ``entry`` over ``used``: its names are the entry's when they do not depend
    on the first card's suit (found out once per entry), else those of the first card set out."""
    names = _SUIT_FREE.get(id(entry[0]), ())
    if names == ():
        names = _SUIT_FREE[id(entry[0])] = _suit_free(kind, entry, used)
    if names is None:
        names = _by_suit(kind, entry, _set_out(entry[1], used)[0])
    return names, entry[1], used


def _reference_names(kind: str, entry: Entry, first: int) -> tuple[str, ...]:
    """The reference hand's ``names``, which read the hand's first card only."""
    category, tiebreak = entry[0]
    hand_cards = (FULL_DECK[first],)
    hand: Any = (
        three_card.ThreeCardHand(category, tiebreak, hand_cards)
        if kind == "three"
        else five_card.FiveCardHand(category, tiebreak, hand_cards)
    )
    names: tuple[str, ...] = hand.names
    return names


def _suit_free(kind: str, entry: Entry, used: Sequence[int]) -> tuple[str, ...] | None:
    """The entry's names if the first card's suit does not change them (asked for all four
    suits of one of its cards' rank), else None. An entry's key is the classification table's
    own tuple (it lives as long as the module), so its identity names the entry (`_SUIT_FREE`)."""
    base = used[0] - _SUIT[used[0]]
    answers = {_reference_names(kind, entry, base + suit) for suit in range(4)}
    return answers.pop() if len(answers) == 1 else None


def _by_suit(kind: str, entry: Entry, first: int) -> tuple[str, ...]:
    lookup = (id(entry[0]), _SUIT[first])
    names = _BY_SUIT.get(lookup)
    if names is None:
        names = _BY_SUIT[lookup] = _reference_names(kind, entry, first)
    return names


def clear() -> None:
    """Forget every formed hand (for measurements that must not find them already formed)."""
    _FORMED.clear()


def indices(texts: tuple[str, ...]) -> list[int]:
    """The cards' deck indices; `KeyError` (a `LookupError`) for a text that is not a card."""
    index = INDEX
    return [index[text.lower()] for text in texts]


def formed(source: str, own: list[int], dealer: list[int], community: list[int]) -> Hand:
    """`form_hand` of cards already read and known to be distinct (`LookupError` for a source
    or a count the reference does not form)."""
    if source == "three_card":
        return _three(own)
    if source == "five_of_six":
        pool = own + dealer
    elif source == "five_card":
        pool = own + community
    else:
        raise LookupError(source)
    size = len(pool)
    if size == 5:  # a five's code and suit test do not depend on the cards' order
        entry = _entry(pool)
        names = _SUIT_FREE.get(id(entry[0]))  # `_hand`, written out: the common case
        return (names, entry[1], pool) if names is not None else _hand("five", entry, pool)
    if size in {6, 7}:  # highest first: `sort` and `reverse`, each one C call compiled (the
        pool.sort()  # keyword `reverse` a generic call, ~2k instructions); equal ints are alike
        pool.reverse()
        return _best_of_six(pool) if size == 6 else _best_of_seven(pool)
    raise LookupError("best five needs five to seven cards")


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
    numbers = indices(pool)
    if len(set(numbers)) != len(numbers):
        raise LookupError("a card repeats")
    rest = numbers[len(own) :]
    hand = formed(source, numbers[: len(own)], rest, rest)
    result = FormedHand(hand[0], cards(hand))
    if len(_FORMED) >= _MAX_FORMED:
        _FORMED.clear()
    _FORMED[(source, pool)] = result
    return result


def _three(three: list[int]) -> Hand:
    if len(three) != 3:
        raise LookupError("a three-card hand needs three cards")
    a, b, c = three
    suit = _SUIT
    table = _THREE_SUITED if suit[a] == suit[b] == suit[c] else _THREE_UNSUITED
    entry = table[_FIELD[a] + _FIELD[b] + _FIELD[c]]
    names = _SUIT_FREE.get(id(entry[0]))  # written out: a third of the hands formed are these
    return (names, entry[1], three) if names is not None else _hand("three", entry, three)


def _entry(five: Sequence[int]) -> Entry:
    a, b, c, d, e = five
    suit = _SUIT
    s = suit[a]
    code = _FIELD[a] + _FIELD[b] + _FIELD[c] + _FIELD[d] + _FIELD[e]
    if suit[b] == s and suit[c] == s and suit[d] == s and suit[e] == s:
        return _FIVE_SUITED[code]
    return _FIVE_UNSUITED[code]


def _best_of_six(ordered: list[int]) -> Hand:
    """`best_five` of six cards, high first: `combinations(ordered, 5)` leaves out the last card
    first, then each earlier one in turn, and a strict ">" keeps the first of equal keys. Each
    five's code is the six's code less the card left out; it is one suit only if the six hold a
    suit five or six times and the card left out is not the odd one."""
    field, suit, count = _FIELD, _SUIT, _SUIT_COUNT
    a, b, c, d, e, f = ordered
    code = field[a] + field[b] + field[c] + field[d] + field[e] + field[f]
    suits = count[a] + count[b] + count[c] + count[d] + count[e] + count[f]
    unsuited = _FIVE_UNSUITED
    best: Entry
    if not (suits + 0x3333) & _FIVE_OF_A_SUIT:  # no five of a suit: no five is a flush
        best, best_out = (_SIX or _six_table())[code]
    else:
        best_out = -1
        six_suited = suits in (6, 6 << 4, 6 << 8, 6 << 12)
        flush = next(s for s in range(4) if (suits >> 4 * s) & 15 >= 5)
        for out in (5, 4, 3, 2, 1, 0):
            left_out = ordered[out]
            table = _FIVE_SUITED if six_suited or suit[left_out] != flush else unsuited
            entry = table[code - field[left_out]]
            if best_out < 0 or entry[0] > best[0]:
                best, best_out = entry, out
    used = ordered[:best_out] + ordered[best_out + 1 :]
    names = _SUIT_FREE.get(id(best[0]))  # `_hand`, written out: the common case
    return (names, best[1], used) if names is not None else _hand("five", best, used)


#: A six-card rank-count code -> the walk's answer when no five share a suit: the best five's
#: entry and the place (0-5, high first) of the card left out. Every five is then unsuited, its
#: code the six's less the card left out, so the answer is the code's alone (filled at once,
#: on the first six-card pool without five of a suit: ~18,000 codes, ~40 ms).
_SIX: dict[int, tuple[Entry, int]] = {}


def _six_table() -> dict[int, tuple[Entry, int]]:
    """`_best_of_six`'s walk over every six ranks (at most four of one): leave out the last
    card first, then each earlier one, and keep the first of equal keys (strict ">")."""
    unsuited = _FIVE_UNSUITED
    rank_fields = [_FIELD[4 * rank] for rank in range(13)]  # deck index = 4 * (rank - 2) + suit
    for ranks in itertools.combinations_with_replacement(range(12, -1, -1), 6):
        if max(ranks.count(rank) for rank in set(ranks)) > 4:
            continue
        fields = [rank_fields[rank] for rank in ranks]
        code = sum(fields)
        best: Entry = unsuited[code - fields[5]]
        best_out = 5
        for out in (4, 3, 2, 1, 0):
            entry = unsuited[code - fields[out]]
            if entry[0] > best[0]:
                best, best_out = entry, out
        _SIX[code] = (best, best_out)
    return _SIX


def _best_of_seven(ordered: list[int]) -> Hand:
    best = tuple(ordered[:5])
    best_entry = _entry(best)
    for five in itertools.combinations(ordered, 5):
        entry = _entry(five)
        if entry[0] > best_entry[0]:
            best, best_entry = five, entry
    return _hand("five", best_entry, best)
