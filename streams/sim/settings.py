"""Configuration of the floor simulator: tables, and the (dishonest, opt-in) forced deals.

Kept apart from `streams.sim.floor` so the per-game round scripts in `streams.sim.games` can use
these types without importing the simulator that drives them.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.model.errors import ConfigError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
ALL_CARDS: tuple[str, ...] = tuple(rank + suit for rank in RANKS for suit in SUITS)

#: game -> (cards per player, cards for the dealer). Four Card Prime: 682a.11(a)(2) gives the
#: player five cards; 682a.11 does not give the dealer's count ("four card hand"): five assumed.
HAND_SIZES: dict[str, tuple[int, int]] = {
    "three_card_poker": (3, 3),
    "lunar_poker": (5, 5),
    "three_card_prime": (3, 3),
    "four_card_prime": (5, 5),
}
GAMES: tuple[str, ...] = tuple(HAND_SIZES)
MAX_SEATS = 7


@dataclass(frozen=True, slots=True)
class SimTable:
    """One simulated table: its game, its seats (1 = dealer's far left) and its progressive offer.

    `wager_unit_cents` is the amount of every progressive wager placed at this table ($1 or $5
    meters in 649a.12); `progressive_wagers` names the progressive wagers offered here, e.g.
    ``("progressive", "five_card_hand_bonus")`` at a Three Card Poker table.
    """

    table_id: str
    game: str
    seats: int
    wager_unit_cents: int
    progressive_wagers: tuple[str, ...]

    def __post_init__(self) -> None:
        source = f"SimTable {self.table_id!r}"
        if self.game not in HAND_SIZES:
            raise ConfigError(source, "game", f"one of {', '.join(GAMES)}, not {self.game!r}")
        if not 1 <= self.seats <= MAX_SEATS:
            raise ConfigError(source, "seats", f"1..{MAX_SEATS} seats, not {self.seats}")
        if self.wager_unit_cents <= 0:
            raise ConfigError(source, "wager_unit_cents", "a positive number of cents, e.g. 100")
        if len(set(self.progressive_wagers)) != len(self.progressive_wagers):
            raise ConfigError(source, "progressive_wagers", "each wager name at most once")


@dataclass(frozen=True, slots=True, kw_only=True)
class ForcedDeal:
    """Cards placed on purpose: `seat` to one random wagering seat, `dealer` to the dealer, and
    `community` as the first community cards (used only in rounds where community cards are dealt).

    The remaining cards are dealt from the honestly shuffled rest of the deck, so no card appears
    twice. A deal that does not fit a game (more seat or dealer cards than its hands hold) is never
    used at that game's tables.
    """

    seat: tuple[str, ...] = ()
    dealer: tuple[str, ...] = ()
    community: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        cards = (*self.seat, *self.dealer, *self.community)
        unknown = [card for card in cards if card not in ALL_CARDS]
        if unknown:
            raise ConfigError("ForcedDeal", "cards", f"cards like 'As' or 'Td', not {unknown}")
        if len(set(cards)) != len(cards):
            raise ConfigError("ForcedDeal", "cards", "each card at most once across the deal")
        if len(self.community) > 2:
            raise ConfigError("ForcedDeal", "community", "at most the 2 community cards")

    def fits(self, game: str) -> bool:
        """Whether this deal can be placed in one round of `game`."""
        player, dealer = HAND_SIZES[game]
        return len(self.seat) <= player and len(self.dealer) <= dealer


#: A-K-Q of spades: the 100%-of-meter hand of the Progressive Payout Wager, 649a.12(e)(1).
AKQ_SPADES = ForcedDeal(seat=("As", "Ks", "Qs"))
#: A royal flush of spades formed with the two community cards: 649a.12(h)(1) and (i)(1).
COMMUNITY_ROYAL = ForcedDeal(seat=("As", "Ks", "Qs"), community=("Js", "Ts"))
#: The dealer's three cards and the community cards form a royal: Five Card Hand Bonus on the
#: dealer's hand, 649a.12(i)(2).
DEALER_ROYAL = ForcedDeal(dealer=("Ah", "Kh", "Qh"), community=("Jh", "Th"))
#: A spade royal from a player's three cards and the dealer's three: 5 of 6, 649a.12(j)(1).
FIVE_OF_SIX_ROYAL = ForcedDeal(seat=("As", "Ks", "Qs"), dealer=("Js", "Ts"))


@dataclass(frozen=True, slots=True)
class ForcedHands:
    """A test and demo aid: NOT honest dealing, and off unless a `FloorSimulator` is given one.

    With `probability` per round, one of `deals` (chosen at random among those that fit the table's
    game) is placed, so a short simulation shows jackpot hits. Events of a forced round have exactly
    the shape of any other round; nothing in them says the deal was forced.
    """

    probability: float
    deals: tuple[ForcedDeal, ...] = (AKQ_SPADES,)

    def __post_init__(self) -> None:
        if not 0.0 <= self.probability <= 1.0:
            raise ConfigError("ForcedHands", "probability", "a number between 0 and 1")
        if not self.deals:
            raise ConfigError("ForcedHands", "deals", "at least one ForcedDeal")
