"""What each seed game allows: card counts, decisions, wagers, and what a fold forfeits.

The controller does not settle the base game (the dealer does); it needs each game's shape to
validate
table events, to know which side wagers survive a fold, and to settle progressive wagers in the
game's order. Every entry cites the rule it encodes.
"""

from __future__ import annotations

from dataclasses import dataclass

PROGRESSIVE_WAGERS = (
    "progressive",  # 649a.12(e) Progressive Payout Wager
    "five_card_progressive",  # 649a.12(h) Five-Card Progressive Payout Wager
    "five_card_hand_bonus",  # 649a.12(i) Five Card Hand Bonus Wager
    "five_of_six_progressive",  # 649a.12(j) 5 of 6 Progressive Payout Wager
)
"""Progressive wagers, in the order 649a.11(c)(5), (7), (8), (9) settles them."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRules:
    """One game's shape, as far as the progressive controller needs it."""

    name: str
    player_cards: frozenset[int]
    dealer_cards: frozenset[int]
    community_cards: frozenset[int]
    base_wagers: frozenset[str]
    wagers_on_other_hands: frozenset[str]
    survives_fold: frozenset[str]
    envy_survives_fold: bool
    continue_actions: frozenset[str]
    option_actions: frozenset[str]


THREE_CARD_POKER = GameRules(
    name="three_card_poker",
    player_cards=frozenset({3}),
    dealer_cards=frozenset({3}),
    community_cards=frozenset(
        {0, 2}
    ),  # 649a.11(c)(7)-(8): two community cards for five-card wagers
    base_wagers=frozenset({"ante", "play", "pair_plus", "six_card_bonus"}),
    wagers_on_other_hands=frozenset(),
    # 649a.11(b)(3): Six Card Bonus, Five Card Hand Bonus and 5 of 6 are not forfeited by a fold;
    # 649a.11(b)(1)-(2): Ante, Pair Plus and the (Five-Card) Progressive Payout Wager are.
    survives_fold=frozenset({"six_card_bonus", "five_card_hand_bonus", "five_of_six_progressive"}),
    envy_survives_fold=True,  # 649a.11(b)(2): a fold keeps the eligibility for an Envy Bonus
    continue_actions=frozenset({"play"}),
    option_actions=frozenset(),
)

LUNAR_POKER = GameRules(
    name="lunar_poker",
    player_cards=frozenset({5, 6}),  # 671a.11(d)(1)(i): a bought sixth card makes six
    dealer_cards=frozenset({5}),
    community_cards=frozenset({0}),
    base_wagers=frozenset({"ante", "bet", "super", "options_fee"}),
    wagers_on_other_hands=frozenset({"super"}),  # 671a.11(c)(1)-(2), (e): Super Wagers on others
    survives_fold=frozenset(
        {"super"}
    ),  # 671a.11(c): Super Wagers settle before folds are collected
    envy_survives_fold=False,
    continue_actions=frozenset({"bet"}),
    option_actions=frozenset({"buy_sixth_card", "draw"}),  # 671a.11(b)(3)
)

THREE_CARD_PRIME = GameRules(
    name="three_card_prime",
    player_cards=frozenset({3}),
    dealer_cards=frozenset({3}),
    community_cards=frozenset({0}),
    base_wagers=frozenset({"ante", "play", "prime", "pair_bonus", "all_six_bonus"}),
    wagers_on_other_hands=frozenset(),
    survives_fold=frozenset({"prime", "pair_bonus", "all_six_bonus"}),  # 679a.11(b)
    envy_survives_fold=False,
    continue_actions=frozenset({"play"}),
    option_actions=frozenset(),
)

FOUR_CARD_PRIME = GameRules(
    name="four_card_prime",
    player_cards=frozenset({5}),  # 682a.11(a)(2): five cards, best four
    dealer_cards=frozenset({5, 6}),
    community_cards=frozenset({0}),
    base_wagers=frozenset({"ante", "raise", "prime", "aces_bonus", "all_six_bonus"}),
    wagers_on_other_hands=frozenset(),
    survives_fold=frozenset({"prime", "aces_bonus", "all_six_bonus"}),  # 682a.11(b)
    envy_survives_fold=False,
    continue_actions=frozenset({"raise"}),
    option_actions=frozenset(),
)

GAMES: dict[str, GameRules] = {
    rules.name: rules
    for rules in (THREE_CARD_POKER, LUNAR_POKER, THREE_CARD_PRIME, FOUR_CARD_PRIME)
}


def settlement_order(seats: set[int] | frozenset[int]) -> tuple[int, ...]:
    """Seats in the order players are settled: farthest to the dealer's right first.

    649a.11(c), 671a.11(f)(2), 679a.11(c), 682a.11(d): "beginning with the player farthest to the
    dealer's right and continuing ... counterclockwise". Seat 1 is the dealer's far left, so the
    highest
    seat number is settled first.
    """
    return tuple(sorted(seats, reverse=True))
