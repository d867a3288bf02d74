"""Per-game round scripts: the bodies (``type`` plus per-type fields) of one round's table events.

`streams.sim.floor` adds the envelope (`event_id`, `table_id`, `round_id`, `seq`, `occurred_at`)
and decides whether a round is voided. Every script follows one shape: wagers, ``wagers_locked``,
the deal (one honestly shuffled deck, `Shoe`), decisions from the player farthest to the dealer's
left clockwise (649a.11(b), 671a.11(c), 679a.11(b), 682a.11(b)), then ``round_settled`` with the
cards of every seat that wagered.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from streams.sim.cards import (
    Shoe,
    four_card_raise,
    lunar_bets,
    lunar_discards,
    lunar_instant,
    three_card_plays,
)
from streams.sim.settings import HAND_SIZES, ForcedDeal, SimTable

Event = dict[str, object]

ANTES_CENTS = (500, 1000, 1000, 1500, 2500, 5000)
SIDE_CENTS = (500, 1000, 2500)
#: Non-progressive optional wagers every table of the game offers, with how often a seat takes them.
OPTIONAL_WAGERS: dict[str, tuple[tuple[str, float], ...]] = {
    "three_card_poker": (("pair_plus", 0.4), ("six_card_bonus", 0.15)),
    "lunar_poker": (("super", 0.4),),
    "three_card_prime": (("prime", 0.3), ("pair_bonus", 0.3), ("all_six_bonus", 0.2)),
    "four_card_prime": (("prime", 0.3), ("aces_bonus", 0.3), ("all_six_bonus", 0.2)),
}
#: 649a.11(c)(7)-(8): two community cards are dealt for these wagers.
COMMUNITY_WAGERS = ("five_card_progressive", "five_card_hand_bonus")


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """What a round script needs: table, RNG, floor behaviour and an optional forced deal."""

    table: SimTable
    rng: random.Random
    occupancy: float
    progressive_take: float
    forced: ForcedDeal | None


@dataclass(slots=True)
class _Round:
    plan: RoundPlan
    seats: list[int]
    antes: dict[int, int]
    events: list[Event]
    hands: dict[int, list[str]]
    dealer: list[str]
    shoe: Shoe


def money(cents: int) -> str:
    """Cents as the contract's decimal string: 150 -> "1.50"."""
    return f"{cents // 100}.{cents % 100:02d}"


def wager(seat: int, name: str, cents: int, on: str = "own") -> Event:
    return {"type": "wager_placed", "seat": seat, "wager": name, "amount": money(cents), "on": on}


def decision(seat: int, action: str, cents: int | None = None) -> Event:
    event: Event = {"type": "decision", "seat": seat, "action": action}
    if cents is not None:
        event["amount"] = money(cents)
    return event


def _or_fold(seat: int, action: str, cents: int, *, take: bool) -> Event:
    return decision(seat, action, cents) if take else decision(seat, "fold")


def play_round(plan: RoundPlan) -> list[Event]:
    """All event bodies of one complete (unvoided) round at `plan.table`."""
    rnd = _open_and_deal(plan)
    return _SCRIPTS[plan.table.game](rnd)


def _open_and_deal(plan: RoundPlan) -> _Round:
    rng, table = plan.rng, plan.table
    seats = [seat for seat in range(1, table.seats + 1) if rng.random() < plan.occupancy]
    # A table with nobody seated deals no round, so one player is always there.
    seats = seats or [rng.randint(1, table.seats)]
    events: list[Event] = [{"type": "round_opened", "game": table.game}]
    antes: dict[int, int] = {}
    for seat in seats:
        events += _seat_wagers(plan, seat, antes)
    if table.game == "lunar_poker":
        events += _cross_supers(plan, sorted(antes))
    events.append({"type": "wagers_locked"})
    shoe = Shoe(rng, plan.forced)
    hands, dealer = _deal(plan, shoe, seats, _progressive_seats(events, table))
    return _Round(plan, seats, antes, events, hands, dealer, shoe)


def _seat_wagers(plan: RoundPlan, seat: int, antes: dict[int, int]) -> list[Event]:
    rng, table = plan.rng, plan.table
    # Assumed: a few Three Card Poker players bet Pair Plus alone (so make no decision); the other
    # games' players always Ante.
    ante = rng.choice(ANTES_CENTS) if table.game != "three_card_poker" or rng.random() < 0.95 else 0
    events = [wager(seat, "ante", ante)] if ante else []
    for name, rate in OPTIONAL_WAGERS[table.game]:
        if rng.random() < rate or (not ante and name == "pair_plus"):
            events.append(wager(seat, name, rng.choice(SIDE_CENTS)))
    if not ante:
        return events
    antes[seat] = ante
    for name in table.progressive_wagers:
        if rng.random() < plan.progressive_take:
            # 649a.12: every progressive wager is exactly the meter's unit ($1 or $5).
            events.append(wager(seat, name, table.wager_unit_cents))
            if name == "five_card_hand_bonus" and rng.random() < 0.3:
                events.append(wager(seat, name, table.wager_unit_cents, "dealer"))  # 649a.12(i)(2)
    return events


def _cross_supers(plan: RoundPlan, playing: list[int]) -> list[Event]:
    """671a.11(c)(1), (e): Super Wagers on another playing seat's hand or on the dealer's hand."""
    rng, events = plan.rng, []
    for seat in playing:
        others = [other for other in playing if other != seat]
        if others and rng.random() < 0.1:
            target = f"seat:{rng.choice(others)}"
            events.append(wager(seat, "super", rng.choice(SIDE_CENTS), target))
        if rng.random() < 0.1:
            events.append(wager(seat, "super", rng.choice(SIDE_CENTS), "dealer"))
    return events


def _progressive_seats(events: list[Event], table: SimTable) -> list[int]:
    seats = {
        event["seat"]
        for event in events
        if event["type"] == "wager_placed" and event["wager"] in table.progressive_wagers
    }
    return sorted(seat for seat in seats if isinstance(seat, int))


def _deal(
    plan: RoundPlan, shoe: Shoe, seats: list[int], preferred: list[int]
) -> tuple[dict[int, list[str]], list[str]]:
    player_count, dealer_count = HAND_SIZES[plan.table.game]
    forced = plan.forced or ForcedDeal()
    target = plan.rng.choice(preferred or seats) if plan.forced else None
    hands: dict[int, list[str]] = {}
    for seat in seats:
        placed = list(forced.seat) if seat == target else []
        hands[seat] = placed + shoe.draw(player_count - len(placed))
    dealer = list(forced.dealer) + shoe.draw(dealer_count - len(forced.dealer))
    return hands, dealer


def _settled(rnd: _Round, community: list[str]) -> Event:
    seats = {str(seat): rnd.hands[seat] for seat in rnd.seats}
    return {"type": "round_settled", "dealer": rnd.dealer, "community": community, "seats": seats}


def _wagered(rnd: _Round, name: str) -> list[int]:
    found = [e["seat"] for e in rnd.events if e["type"] == "wager_placed" and e["wager"] == name]
    return sorted({seat for seat in found if isinstance(seat, int)})


def _three_card_poker(rnd: _Round) -> list[Event]:
    _play_or_fold(rnd)
    community: list[str] = []
    if any(_wagered(rnd, name) for name in COMMUNITY_WAGERS):
        forced = rnd.plan.forced.community if rnd.plan.forced else ()
        community = list(forced) + rnd.shoe.draw(2 - len(forced))
    settled = _settled(rnd, community)
    bonus_seats = _wagered(rnd, "five_card_hand_bonus")
    if bonus_seats and rnd.plan.rng.random() < 0.5:  # 649a.12(i)(3): Lucky Bonus and Magic Card
        settled["random_seat"] = rnd.plan.rng.choice([*map(str, bonus_seats), "dealer"])
        settled["magic_card"] = rnd.shoe.draw(1)[0]
    rnd.events.append(settled)
    return rnd.events


def _lunar_poker(rnd: _Round) -> list[Event]:
    """671a.11(b)-(d): bet, fold or pay an Options fee (sixth card or draw), then bet or fold."""
    rng, options = rnd.plan.rng, []
    spare = rnd.shoe.remaining  # cards left for options; a player cannot buy what the deck lacks
    for seat in sorted(rnd.antes):
        hand, ante = rnd.hands[seat], rnd.antes[seat]
        choice, discards = rng.random(), lunar_discards(hand)
        if lunar_instant(hand):
            continue  # 671a.11(b)(2): paid at once, no Bet Wager
        if lunar_bets(hand):
            rnd.events.append(decision(seat, "bet", 2 * ante))
        elif choice < 0.3 and spare >= 1:
            spare -= 1
            options.append((seat, list[str]()))
            rnd.events.append(decision(seat, "buy_sixth_card", ante))
        elif choice < 0.6 and spare >= len(discards):
            spare -= len(discards)
            options.append((seat, discards))
            rnd.events.append({**decision(seat, "draw", ante), "discards": discards})
        else:
            rnd.events.append(decision(seat, "fold"))
    for seat, discards in options:  # 671a.11(d): after "all decisions are locked in"
        _lunar_option(rnd, seat, discards)
    rnd.events.append(_settled(rnd, []))
    return rnd.events


def _lunar_option(rnd: _Round, seat: int, discards: list[str]) -> None:
    """Deal the sixth card (no discards) or the replacements, then the seat bets or folds."""
    kept = [card for card in rnd.hands[seat] if card not in discards]
    hand = kept + rnd.shoe.draw(len(discards) or 1)
    rnd.hands[seat] = hand
    bets = lunar_bets(hand)
    rnd.events.append(_or_fold(seat, "bet", 2 * rnd.antes[seat], take=bets))


def _play_or_fold(rnd: _Round) -> None:
    """649a.11(b), 679a.11(b): a Play Wager equal to the Ante, or fold."""
    for seat in sorted(rnd.antes):
        plays = three_card_plays(rnd.hands[seat])
        rnd.events.append(_or_fold(seat, "play", rnd.antes[seat], take=plays))


def _three_card_prime(rnd: _Round) -> list[Event]:
    """679a.11: players and dealer hold three cards; optional wagers survive a fold."""
    _play_or_fold(rnd)
    rnd.events.append(_settled(rnd, []))
    return rnd.events


def _four_card_prime(rnd: _Round) -> list[Event]:
    """682a.11(b): Raise 1-3x the Ante or fold; (e)(3): the All-Six Bonus card."""
    for seat in sorted(rnd.antes):
        multiple = four_card_raise(rnd.hands[seat])
        ante = rnd.antes[seat]
        rnd.events.append(_or_fold(seat, "raise", multiple * ante, take=multiple > 0))
    settled = _settled(rnd, [])
    if _wagered(rnd, "all_six_bonus"):
        settled["bonus_card"] = rnd.shoe.draw(1)[0]
    rnd.events.append(settled)
    return rnd.events


_SCRIPTS: dict[str, Callable[[_Round], list[Event]]] = {
    "three_card_poker": _three_card_poker,
    "lunar_poker": _lunar_poker,
    "three_card_prime": _three_card_prime,
    "four_card_prime": _four_card_prime,
}
