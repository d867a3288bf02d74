"""The fast hand former equals the reference's `form_hand`: every three-card hand exhaustively,
five- and six-card pools by Hypothesis (any order, any letter case, "10" for T), and refuses what
the reference refuses."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.fast import hands
from controller.model.cards import FULL_DECK, Card, deck_index
from controller.model.errors import RuleViolation
from controller.rules.hand_forming import form_hand
from controller.rules.hands import five_card, three_card

TEXTS = [str(card) for card in FULL_DECK]


def _spelled(text: str, upper: bool, ten: bool) -> str:
    out = text.upper() if upper else text
    return "10" + out[1] if ten and out[0] in "Tt" else out


def test_every_classification_entry_has_a_key_object_of_its_own() -> None:
    """`hands` memoises names by the identity of an entry's key: no two entries, of either
    kind, may share one (a shared key would hand one entry's names to another)."""
    tables = (three_card._SUITED, three_card._UNSUITED, five_card._SUITED, five_card._UNSUITED)
    keys = [id(entry[0]) for table in tables for entry in table.values()]
    assert len(keys) == len(set(keys)) > 8_000


def test_the_names_memo_is_keyed_by_the_tables_own_keys() -> None:
    """Every three-card entry met is memoised under its key's identity. Compiled by mypyc, a
    key typed as the reference's fixed-length tuple would be unboxed and boxed anew for each
    hand, and the memo would hold the ids of dead boxes (then hand one entry's names to
    another): the tables are read through `Entry`-typed aliases so this holds there too."""
    hands.clear()
    for cards in itertools.combinations(TEXTS, 3):
        hands.form("three_card", cards, (), ())
    tables = (three_card._SUITED, three_card._UNSUITED)
    met = {id(entry[0]) for table in tables for entry in table.values()}
    assert met <= set(hands._SUIT_FREE)


def test_every_three_card_hand_forms_as_the_reference_forms_it() -> None:
    for cards in itertools.combinations(TEXTS, 3):
        own = (cards[2], cards[0], cards[1])
        assert hands.form("three_card", own, (), ()) == form_hand("three_card", own, (), ())


@settings(max_examples=400, deadline=None)
@given(
    st.permutations(TEXTS).map(lambda deck: deck[:8]),
    st.sampled_from(["five_card", "five_of_six"]),
    st.booleans(),
    st.booleans(),
)
def test_five_card_pools_form_as_the_reference_forms_them(
    deck: list[str], source: str, upper: bool, ten: bool
) -> None:
    texts = [_spelled(text, upper, ten) for text in deck]
    own, dealer, community = tuple(texts[:3]), tuple(texts[3:6]), tuple(texts[6:8])
    assert hands.form(source, own, dealer, community) == form_hand(source, own, dealer, community)


@pytest.mark.parametrize(
    ("source", "own", "community"),
    [
        ("three_card", ("As", "As", "Kd"), ()),  # a repeated card
        ("three_card", ("As", "Kd"), ()),  # too few
        ("three_card", ("As", "Kd", "Xx"), ()),  # not a card
        ("five_card", ("As", "Kd", "Qh"), ("Js",)),  # four cards
        ("five_card", ("As", "Kd", "Qh"), ("Js", "Kd")),  # repeated across the pool
    ],
)
def test_what_the_reference_refuses_the_fast_former_refuses(
    source: str, own: tuple[str, ...], community: tuple[str, ...]
) -> None:
    with pytest.raises(RuleViolation):
        form_hand(source, own, (), community)
    with pytest.raises(LookupError):
        hands.form(source, own, (), community)


def test_the_spellings_read_as_they_come_are_the_reference_s_cards() -> None:
    # Settlement reads card texts through `SPELLED` without lower-casing them: every spelling
    # there must be the card `Card.parse` reads, and every ASCII spelling it reads must be there
    # (anything else is left to the reference, which words the refusal).
    for text, number in hands.SPELLED.items():
        assert deck_index(Card.parse(text)) == number
    letters = "23456789TJQKAtjqka"
    for rank, suit in itertools.product([*letters, "10"], "cdhsCDHS"):
        assert hands.SPELLED[rank + suit] == deck_index(Card.parse(rank + suit))
    for text in ("Ks", "\u212as", "As ", "1s", "10", "AsK"):  # Kelvin sign, space, not cards
        assert text not in hands.SPELLED or text == "Ks"


def _six_without_five_of_a_suit(ranks: tuple[int, ...]) -> list[str]:
    """Six cards of these ranks (2-14), the suits dealt round in turn: no suit three times."""
    return [str(FULL_DECK[(rank - 2) * 4 + place % 4]) for place, rank in enumerate(ranks)]


def test_every_six_ranks_form_their_best_five_as_the_reference_forms_it() -> None:
    """649a.11(c)(9): the player's three and the dealer's three form the highest ranking
    five-card hand (paid only on it, 649a.12(j)(2)). Every six ranks (at most four of one) that
    hold no five of a suit take `hands._SIX`, the precomputed answer per rank-count code:
    names and the cards set out equal the reference's, the card left out included (a table
    that kept the last of two equal keys would leave out the other card of a pair)."""
    hands.clear()
    count = 0
    for ranks in itertools.combinations_with_replacement(range(14, 1, -1), 6):
        if max(ranks.count(rank) for rank in ranks) > 4:
            continue
        texts = _six_without_five_of_a_suit(ranks)
        own, dealer = tuple(texts[1::2]), tuple(texts[::2])  # not in rank order
        assert hands.form("five_of_six", own, dealer, ()) == form_hand(
            "five_of_six", own, dealer, ()
        ), (own, dealer)
        count += 1
    assert count == len(hands._SIX) == 18_395
