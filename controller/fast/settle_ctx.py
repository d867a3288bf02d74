"""The one round's settlement context of `controller.fast.settle`: the round's wagers, cards and
hands, the hands formed so far and the Envy holders found so far, and the steps written.

Its own module because it is the state every step of the settlement reads and the caches that
make the fast settlement fast (each hand formed once per round and source, each Envy table's
holders found once); the steps themselves, mirroring the reference's functions, stay in
`controller.fast.settle`.
"""

from __future__ import annotations

from fractions import Fraction

from controller.config.floor import FloorConfig, TableDef
from controller.fast.hands import Hand, formed
from controller.fast.records import Round, SettledWager
from controller.fast.settle_check import SettledCards
from controller.model.cards import FULL_DECK
from controller.model.games import GAMES, GameRules
from controller.model.table_events import RoundSettled
from controller.rules.settlement import SettlementStep

DEALER = "dealer"
Target = int | str  # a seat, or DEALER
Qualifying = list[tuple[int, str, Hand]]  # (holder seat, Envy name, hand), settlement order
#: A card's suit counted in a four-bit field per suit: the sum over a pool counts each suit.
_SUIT_COUNT = tuple(1 << 4 * int(card.suit) for card in FULL_DECK)


class Ctx:
    __slots__ = (
        "bonus_drawn",
        "cards",
        "config",
        "envy",
        "folded",
        "formed",
        "hands",
        "out",
        "round_id",
        "rules",
        "settled",
        "table",
        "wagers",
    )

    def __init__(
        self,
        config: FloorConfig,
        table: TableDef,
        current: Round,
        settled: RoundSettled,
        cards: SettledCards,
    ) -> None:
        self.config = config
        self.table = table
        self.round_id = current.round_id
        self.wagers = cards.wagers  # each read once (`settle_check.SettledWager`)
        self.settled = settled
        self.hands = dict(settled.seats)
        self.cards = cards
        self.folded = cards.folded
        self.rules: GameRules = GAMES[current.game]
        self.formed: dict[tuple[str, Target], Hand] = {}
        # (meter, wager kind, amount) -> the qualifying Envy hands (`_qualifying`)
        self.envy: dict[tuple[str, str, int], Qualifying] = {}
        # 649a.12(i)(3): no Magic Card and no Lucky Bonus draw, no bonus to look for
        self.bonus_drawn = settled.magic_card is not None or settled.random_seat is not None
        self.out: list[SettlementStep] = []

    def forfeited(self, wager: SettledWager) -> bool:
        """`_forfeited`: 649a.11(b), a fold forfeits the wagers the game does not protect."""
        return wager.seat in self.folded and wager.wager not in self.rules.survives_fold

    def target(self, wager: SettledWager) -> Target:
        """Whose hand `_target_cards` reads."""
        on = wager.on
        if on == DEALER:
            return DEALER
        return int(on.removeprefix("seat:")) if on.startswith("seat:") else wager.seat

    def texts(self, target: Target) -> tuple[str, ...]:
        """`_target_cards`: the cards as the event gave them."""
        return self.settled.dealer if target == DEALER else self.hands[target]  # type: ignore[index]

    def hand(self, source: str, target: Target) -> Hand:
        """`_form` of ``target``'s cards, formed once per round and source (the dealer's cards
        and the community cards are the round's own, so the target and the source name it)."""
        key = (source, target)
        hand = self.formed.get(key)
        if hand is None:
            cards = self.cards
            if target == DEALER:
                if source == "five_of_six":  # the dealer's cards twice: the reference refuses
                    raise LookupError(source)
                own = cards.dealer
            else:
                own = cards.seats[target]  # type: ignore[index]  # an int here
            hand = self.formed[key] = formed(source, own, cards.dealer, cards.community)
        return hand


def may_be_suited(source: str, own: list[int], dealer: list[int], community: list[int]) -> bool:
    """Whether the hand `hands.formed` forms of these cards for ``source`` may be of one suit (a
    suited classification entry: three of a suit for ``three_card``, five of a suit in the pool
    otherwise). False only for a pool `formed` takes without raising (three cards, or five to
    seven): a pool it refuses is formed, and refused, as before."""
    if source == "three_card":
        pool, need = own, 3
    elif source == "five_of_six":
        pool, need = own + dealer, 5
    elif source == "five_card":
        pool, need = own + community, 5
    else:
        return True
    size = len(pool)
    if size != 3 if need == 3 else not 5 <= size <= 7:
        return True
    count = _SUIT_COUNT
    suits = 0
    for card in pool:
        suits += count[card]
    # a field at ``need`` or more reaches 8 (its bit 3) once 8 - need is added; at most 7 + 5
    return bool((suits + (8 - need) * 0x1111) & 0x8888)


def by_seat_down(wagers: list[SettledWager]) -> list[SettledWager]:
    """``sorted(wagers, key=seat, reverse=True)``: the highest seat first, a seat's wagers in
    the order placed (a stable sort). By insertion (a kind's few wagers), without
    the keyword call (~2.6k instructions compiled) and a ``seat`` read through `attrgetter`."""
    out: list[SettledWager] = []
    for wager in wagers:
        seat = wager.seat
        at = len(out)
        while at and out[at - 1].seat < seat:  # after every wager of its seat or a higher one
            at -= 1
        out.insert(at, wager)
    return out


def times(value: Fraction, cents: int) -> int:
    """``int(value * cents)`` (the reference's amount of a "for 1" award: truncated toward
    zero) in integers: a `Fraction` product is an interpreted call and a new `Fraction`."""
    product = value.numerator * cents
    whole = abs(product) // value.denominator  # a Fraction's denominator is positive
    return whole if product >= 0 else -whole


def high_first(seats: list[int]) -> list[int]:
    """``sorted(seats, reverse=True)`` in place (a list of the caller's own): compiled, ``sort``
    and ``reverse`` are one C call each, the keyword ``reverse`` a generic call (~2k
    instructions); equal ints cannot be told apart, so the order is the same."""
    seats.sort()
    seats.reverse()
    return seats
