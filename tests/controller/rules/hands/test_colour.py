"""Prime colour wagers (679a.11(d)(1), 682a.11(e)(1))."""

from __future__ import annotations

import pytest
from hypothesis import given

from controller.model.cards import Card, parse_cards
from controller.model.errors import InvalidEvent
from controller.rules.hands.colour import four_card_prime_colour, three_card_prime_colour
from tests.strategies_cards import disjoint_hands, hands


@pytest.mark.parametrize(
    ("player", "dealer", "outcome"),
    [
        ("Ah 7d 2h", "Kd Qh 3d", "prime_with_dealer"),  # all red, dealer all red
        ("As 7c 2s", "Kc Qs 3c", "prime_with_dealer"),  # all black, dealer all black
        ("Ah 7d 2h", "Kc Qs 3c", "prime"),  # dealer one colour, but not the player's
        ("Ah 7d 2h", "Kc Qh 3d", "prime"),  # dealer mixed
        ("As 7c 2s", "Kd Qh 3d", "prime"),
        ("Ah 7c 2h", "Kd Qh 3d", "none"),  # player mixed: dealer's colour does not matter
        ("As 7c 2d", "Kc Qs 3c", "none"),
    ],
)
def test_three_card_prime_outcomes(player: str, dealer: str, outcome: str) -> None:
    assert three_card_prime_colour(parse_cards(player.split()), parse_cards(dealer.split())) == (
        outcome
    )


@given(disjoint_hands(3, 3))
def test_three_card_prime_matches_the_rule_wording(deal: tuple[tuple[Card, ...], ...]) -> None:
    player, dealer = deal
    player_colours = {card.suit.is_red for card in player}
    dealer_colours = {card.suit.is_red for card in dealer}
    outcome = three_card_prime_colour(player, dealer)
    if len(player_colours) == 2:
        assert outcome == "none"
    elif dealer_colours == player_colours:
        assert outcome == "prime_with_dealer"
    else:
        assert outcome == "prime"


@pytest.mark.parametrize(
    ("player", "dealer", "reason"),
    [
        ("Ah 7d", "Kd Qh 3d", "needs 3 cards, got 2"),
        ("Ah 7d 2h", "Kd Qh 3d 4d", "needs 3 cards, got 4"),
        ("Ah 7d 2h", "Ah Qh 3d", "repeats Ah"),
        ("Ah Ah 2h", "Kd Qh 3d", "repeats Ah"),
    ],
)
def test_three_card_prime_refuses_bad_hands(player: str, dealer: str, reason: str) -> None:
    with pytest.raises(InvalidEvent, match=reason):
        three_card_prime_colour(parse_cards(player.split()), parse_cards(dealer.split()))


@pytest.mark.parametrize(
    ("player", "wins"),
    [
        ("Ah 7d 2h Kd 9h", True),  # five red
        ("Ah 7d 2h Kd 9s", True),  # four red
        ("Ac 7s 2c Ks 9h", True),  # four black
        ("As 7c 2s Kc 9c", True),  # five black
        ("Ah 7d 2h Kc 9s", False),  # three and two
        ("Ac 7s 2c Kh 9d", False),
    ],
)
def test_four_card_prime_four_or_more_of_one_colour(player: str, wins: bool) -> None:
    assert four_card_prime_colour(parse_cards(player.split())) is wins


@given(hands(5))
def test_four_card_prime_matches_the_rule_wording(player: tuple[Card, ...]) -> None:
    reds = sum(card.suit.is_red for card in player)
    assert four_card_prime_colour(player) is (max(reds, 5 - reds) >= 4)


@pytest.mark.parametrize(
    ("player", "reason"),
    [("Ah 7d 2h Kd", "needs 5 cards, got 4"), ("Ah 7d 2h Kd Ah", "repeats Ah")],
)
def test_four_card_prime_refuses_bad_hands(player: str, reason: str) -> None:
    with pytest.raises(InvalidEvent, match=reason):
        four_card_prime_colour(parse_cards(player.split()))
