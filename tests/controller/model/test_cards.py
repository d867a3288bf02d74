"""Cards: text round trips, refusals, the deck, and the rank-count helpers of the evaluators."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.model.cards import (
    FULL_DECK,
    Card,
    Suit,
    checked_hand,
    deck_index,
    display_places,
    parse_cards,
    rank_code,
    rank_count,
    rank_groups,
    rank_multisets,
    set_out,
    straight_high,
)
from controller.model.errors import InvalidCard, InvalidEvent, RuleViolation
from tests.strategies_cards import hands


def test_full_deck_is_52_distinct_cards_thirteen_of_each_suit() -> None:
    assert len(FULL_DECK) == 52
    assert len(set(FULL_DECK)) == 52
    assert Counter(card.suit for card in FULL_DECK) == dict.fromkeys(Suit, 13)
    assert Counter(card.rank for card in FULL_DECK) == dict.fromkeys(range(2, 15), 4)
    assert list(FULL_DECK) == sorted(FULL_DECK)


@pytest.mark.parametrize("card", FULL_DECK, ids=str)
def test_str_and_parse_round_trip_for_every_card(card: Card) -> None:
    text = str(card)
    assert len(text) == 2
    assert Card.parse(text) == card
    assert Card.parse(text.upper()) == card
    assert Card.parse(text.lower()) == card
    assert str(Card.parse(text)) == text


def test_str_uses_rank_letters_and_lower_case_suits() -> None:
    assert str(Card(14, Suit.SPADES)) == "As"
    assert str(Card(10, Suit.DIAMONDS)) == "Td"
    assert str(Card(2, Suit.CLUBS)) == "2c"
    assert str(Card(13, Suit.HEARTS)) == "Kh"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("As", Card(14, Suit.SPADES)),
        ("AS", Card(14, Suit.SPADES)),
        ("as", Card(14, Suit.SPADES)),
        ("Td", Card(10, Suit.DIAMONDS)),
        ("10d", Card(10, Suit.DIAMONDS)),
        ("10D", Card(10, Suit.DIAMONDS)),
        ("tH", Card(10, Suit.HEARTS)),
        ("2c", Card(2, Suit.CLUBS)),
        ("jc", Card(11, Suit.CLUBS)),
    ],
)
def test_parse_accepts_the_documented_spellings(text: str, expected: Card) -> None:
    assert Card.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "A", "s", "1s", "11s", "0s", "Ax", "Zz", "As ", " As", "Ass", "10", "010d", "A♠", "Ts\n"],
)
def test_parse_refuses_anything_else_naming_the_text(text: str) -> None:
    with pytest.raises(InvalidCard) as caught:
        Card.parse(text)
    assert repr(text) in str(caught.value)
    assert "expected" in str(caught.value)


@given(st.text(max_size=4))
def test_parse_of_arbitrary_text_is_a_card_spelling_or_refused(text: str) -> None:
    try:
        card = Card.parse(text)
    except InvalidCard:
        return
    assert text.lower() in {str(card).lower(), f"10{card.suit.letter}"}


def test_invalid_card_is_a_rule_violation() -> None:
    with pytest.raises(RuleViolation):
        Card.parse("Xx")


@pytest.mark.parametrize(("rank", "suit"), [(1, Suit.SPADES), (15, Suit.SPADES), (0, Suit.CLUBS)])
def test_card_refuses_a_rank_outside_2_to_14(rank: int, suit: Suit) -> None:
    with pytest.raises(InvalidCard, match="from 2 to 14"):
        Card(rank, suit)


def test_card_refuses_a_bool_rank_and_a_plain_int_suit() -> None:
    with pytest.raises(InvalidCard, match="rank"):
        Card(True, Suit.SPADES)
    with pytest.raises(InvalidCard, match="suit"):
        Card(14, 3)  # type: ignore[arg-type]


def test_cards_order_by_rank_then_suit() -> None:
    assert Card(14, Suit.CLUBS) > Card(13, Suit.SPADES)
    assert (
        Card(9, Suit.SPADES) > Card(9, Suit.HEARTS) > Card(9, Suit.DIAMONDS) > Card(9, Suit.CLUBS)
    )


def test_suit_letters_and_colours() -> None:
    assert [suit.letter for suit in Suit] == ["c", "d", "h", "s"]
    assert [suit.is_red for suit in Suit] == [False, True, True, False]


def test_parse_cards_parses_in_order() -> None:
    assert parse_cards(["As", "10d", "2c"]) == (
        Card(14, Suit.SPADES),
        Card(10, Suit.DIAMONDS),
        Card(2, Suit.CLUBS),
    )
    assert parse_cards([]) == ()


def test_parse_cards_names_the_first_bad_text() -> None:
    with pytest.raises(InvalidCard) as caught:
        parse_cards(["As", "Zz", "Qq"])
    assert "'Zz'" in str(caught.value)
    assert "Qq" not in str(caught.value)


def test_parse_cards_refuses_one_string_of_several_cards() -> None:
    with pytest.raises(InvalidCard, match="single string 'AsKs'"):
        parse_cards("AsKs")


def test_checked_hand_refuses_wrong_counts_and_repeats_with_reasons() -> None:
    five = parse_cards(["As", "Ks", "Qs", "Js", "Ts"])
    assert checked_hand(five, (5, 6), "test") == five
    with pytest.raises(InvalidEvent, match=r"needs 3 cards, got 5: \[As Ks Qs Js Ts\]"):
        checked_hand(five, (3,), "test")
    with pytest.raises(InvalidEvent, match="repeats As"):
        checked_hand((*five, Card(14, Suit.SPADES)), (6,), "test")


@given(hands(1, 7))
def test_rank_code_counts_every_rank(hand: tuple[Card, ...]) -> None:
    code = rank_code(card.rank for card in hand)
    counts = Counter(card.rank for card in hand)
    for rank in range(2, 15):
        assert rank_count(code, rank) == counts[rank]


def test_rank_multisets_are_every_dealable_multiset_once() -> None:
    for size, expected in [(3, 455), (4, 1820), (5, 6188 - 13)]:
        multisets = list(rank_multisets(size))
        assert len(multisets) == len(set(multisets)) == expected
        assert all(list(ranks) == sorted(ranks, reverse=True) for ranks in multisets)
    # Five cards of one rank cannot be dealt from one deck.
    assert (14, 14, 14, 14, 14) not in set(rank_multisets(5))


def test_rank_codes_of_dealable_multisets_are_distinct() -> None:
    codes = {rank_code(ranks) for ranks in rank_multisets(5)}
    assert len(codes) == 6175


@pytest.mark.parametrize(
    ("ranks", "high"),
    [
        ((14, 13, 12), 14),
        ((14, 3, 2), 3),
        ((14, 13, 2), 0),
        ((14, 5, 4, 3, 2), 5),
        ((6, 5, 4, 3, 2), 6),
        ((14, 13, 12, 11, 10), 14),
        ((14, 13, 4, 3, 2), 0),
        ((14, 4, 3, 2), 4),
        ((9, 9, 8, 7, 6), 0),
        ((9, 8, 7, 5), 0),
    ],
)
def test_straight_high(ranks: tuple[int, ...], high: int) -> None:
    assert straight_high(ranks) == high


def test_rank_groups_orders_bigger_groups_then_higher_ranks() -> None:
    assert rank_groups((13, 13, 13, 5, 5)) == ((3, 2), (13, 5))
    assert rank_groups((14, 9, 9, 4, 2)) == ((2, 1, 1, 1), (9, 14, 4, 2))
    assert rank_groups((5, 5, 12, 12, 3)) == ((2, 2, 1), (12, 5, 3))


def test_set_out_puts_groups_first_and_a_low_ace_last() -> None:
    full_house = parse_cards(["5c", "Kd", "5s", "Kh", "Kc"])
    places = display_places([13, 13, 13, 5, 5])
    assert set_out(full_house, places) == parse_cards(["Kh", "Kd", "Kc", "5s", "5c"])
    pair = parse_cards(["Ac", "4d", "9s", "2h", "9h"])
    assert set_out(pair, display_places([14, 9, 9, 4, 2])) == parse_cards(
        ["9s", "9h", "Ac", "4d", "2h"]
    )
    wheel = parse_cards(["Ah", "2c", "3d", "4s", "5h"])
    places = display_places([14, 5, 4, 3, 2])
    assert set_out(wheel, places) == parse_cards(["5h", "4s", "3d", "2c", "Ah"])
    # An ace that is not in a low straight stays on top.
    assert set_out(wheel[:4], display_places([14, 4, 3, 2])) == parse_cards(
        ["4s", "3d", "2c", "Ah"]
    )
    broadway = parse_cards(["Th", "Ac", "Qd", "Ks", "Jh"])
    assert set_out(broadway, display_places([14, 13, 12, 11, 10]))[0] == Card(14, Suit.CLUBS)


@given(hands(5))
def test_set_out_is_independent_of_input_order(hand: tuple[Card, ...]) -> None:
    places = display_places(sorted((card.rank for card in hand), reverse=True))
    orders = {set_out(perm, places) for perm in itertools.permutations(hand)}
    assert len(orders) == 1
    assert sorted(orders.pop()) == sorted(hand)


def test_deck_index_is_the_position_in_the_full_deck() -> None:
    assert [deck_index(card) for card in FULL_DECK] == list(range(52))


def test_card_hash_agrees_with_equality() -> None:
    assert len({hash(card) for card in FULL_DECK}) == 52
    assert hash(Card(14, Suit.SPADES)) == hash(Card.parse("as"))


def test_rank_code_layout_matches_the_module_docstring() -> None:
    assert rank_code([13, 13, 5, 5, 2]) == (2 << 33) + (2 << 9) + (1 << 0)
    assert rank_code([14] * 4) == 4 << 36
