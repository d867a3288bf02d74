"""`controller.rules.settlement.settle_round`, step for step, on the session's mutable round and
with hands formed by `controller.fast.hands.formed`.

The order and content of the steps are the reference's (649a.11(c): wager kinds in order, players
from the farthest to the dealer's right, the own-hand wager, its Envy Bonuses, then bonuses; the
dealer-hand jackpot at the policy's turn); each function below names the reference function it
mirrors. What differs is only how often work is done:

* each hand is formed once per round and hand source (`Ctx.hand`): a seat's hand serves its own
  wager and every other player's Envy Bonus check, and two meters judged on the same source
  (649a.12(h) and (i) both on five cards) share it; the cards are read once (`settle_check`);
* the qualifying Envy Bonus hands of a wager kind are found once per Envy table (`_qualifying`):
  the holders are the same for every receiving player but the player's own seat;
* paytables and Envy tables are dicts built once per configuration (`MeterFacts`).

A card or a count the fast former cannot take raises `LookupError`, and the session then lets the
reference settle the round.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Final

from controller.config.floor import FloorConfig, TableDef
from controller.fast.build import builder
from controller.fast.hands import Hand
from controller.fast.hands import cards as shown
from controller.fast.records import Round, SettledWager
from controller.fast.settle_check import SettledCards
from controller.fast.settle_ctx import (
    DEALER,
    Ctx,
    Qualifying,
    by_seat_down,
    high_first,
    may_be_suited,
    times,
)
from controller.fast.tables import MeterFacts
from controller.meter import HitClaim
from controller.model.events import EnvyAwarded, FixedAwarded
from controller.model.games import PROGRESSIVE_WAGERS
from controller.model.table_events import RoundSettled
from controller.rules.settlement import SettlementStep

#: The awards built positionally, a slot each (`controller.fast.build.builder`): their frozen
#: dataclasses' ``__init__`` called with keywords from compiled code took ~20k instructions an
#: award; `Final`, so compiled code reads each from a C static.
_AWARD = ("meter_id", "table_id", "round_id", "seat")
_FIXED: Final = builder(FixedAwarded, (*_AWARD, "wager", "on", "hand", "cards", "amount_cents",
                                       "occurred_at", "hit_id"))  # fmt: skip
_ENVY: Final = builder(EnvyAwarded, (*_AWARD, "holder_seat", "wager", "hand", "cards",
                                     "amount_cents", "occurred_at"))  # fmt: skip


def settle(
    config: FloorConfig,
    table: TableDef,
    current: Round,
    settled: RoundSettled,
    *,
    cards: SettledCards,
    meter_facts: Callable[[str], MeterFacts | None],
) -> list[SettlementStep]:
    """`settle_round`: every progressive award of the round, in settlement order. ``cards``
    are the settlement's cards as `settle_check.read` read them; ``meter_facts`` gives each
    meter's definition of ``config`` with its tables as dicts."""
    ctx = Ctx(config, table, current, settled, cards)
    by_kind = cards.by_kind
    for kind in PROGRESSIVE_WAGERS:
        meter_id = table.links.get(kind)
        wagers = by_kind.get(kind)
        if meter_id is None or not wagers:
            continue
        facts = meter_facts(meter_id)
        if facts is None:
            raise LookupError(meter_id)  # the reference's `config.meters[meter_id]` fails
        # A mystery level is won by its trigger at the lock (`controller.mystery`), not by a hand.
        if not facts.definition.mystery:
            _settle_kind(ctx, facts, kind, wagers)
    return ctx.out


def _settle_kind(ctx: Ctx, facts: MeterFacts, kind: str, wagers: list[SettledWager]) -> None:
    """649a.11(c): players from the farthest to the dealer's right (`settlement_order`: the
    highest seat first), each seat's wagers in the order placed; the dealer-hand jackpot at the
    turn `dealer_hand_turn` names (649a.12(i)(2) leaves it open)."""
    in_order = by_seat_down(wagers) if len(wagers) > 1 else wagers
    dealer_wagers = [w for w in in_order if w.on == DEALER and not ctx.forfeited(w)]
    if not dealer_wagers:
        for wager in in_order:
            if wager.on != DEALER:
                _own_or_other_hand(ctx, facts, wager)
        return
    policy = ctx.config.policy.dealer_hand_turn
    dealer_turn = dealer_wagers[0].seat
    for seat in high_first(list({w.seat for w in wagers})):
        if seat == dealer_turn and policy == "first_wagerer_before_own":
            _dealer_hand(ctx, facts, dealer_wagers)
        for wager in in_order:
            if wager.seat == seat and wager.on != DEALER:
                _own_or_other_hand(ctx, facts, wager)
        if seat == dealer_turn and policy == "first_wagerer_after_own":
            _dealer_hand(ctx, facts, dealer_wagers)
    if policy == "after_all_players":
        _dealer_hand(ctx, facts, dealer_wagers)


def _own_or_other_hand(ctx: Ctx, facts: MeterFacts, wager: SettledWager) -> None:
    """The hand the wager is on (unless a fold forfeited it, 649a.11(b)), paid under its most
    specific name the paytable lists (`_paying`), its bonuses, then the wager's Envy Bonuses."""
    seat, on = wager.seat, wager.on
    if seat not in ctx.folded or wager.wager in ctx.rules.survives_fold:
        target = seat if on == "own" else ctx.target(wager)
        source = facts.source
        hand = ctx.formed.get((source, target)) or ctx.hand(source, target)
        pays = facts.pays
        for name in hand[0]:
            if name in pays:
                _award(ctx, facts, [wager], hand, name)
                break
        if facts.bonuses and ctx.bonus_drawn:
            _bonuses(ctx, facts, [wager])
    if on == "own" and facts.envy:
        _envy(ctx, facts, wager)


def _dealer_hand(ctx: Ctx, facts: MeterFacts, wagers: list[SettledWager]) -> None:
    """649a.12(i)(2): each player who wagered on the dealer's hand is paid on it."""
    hand = ctx.hand(facts.source, DEALER)
    pays = facts.pays
    name = next((n for n in hand[0] if n in pays), None)
    if name is not None:
        _award(ctx, facts, wagers, hand, name)
    _bonuses(ctx, facts, wagers)


def _award(ctx: Ctx, facts: MeterFacts, wagers: list[SettledWager], hand: Hand, name: str) -> None:
    """`_award` of ``hand``, paid as ``name``: `_paying`'s answer, the hand's first (most
    specific) name the paytable lists; only the highest hand formed is paid (649a.12(e)(2),
    (h)(2), (i)(2), (j)(2))."""
    award = facts.pays[name]
    meter = facts.definition
    first = wagers[0]
    if award.kind == "meter_percent":
        ctx.out.append(
            HitClaim(
                meter_id=meter.meter_id,
                table_id=ctx.table.table_id,
                round_id=ctx.round_id,
                wager=first.wager,
                on=first.on,
                hand=name,
                cards=shown(hand),
                share=award.value,
                recipients=tuple(w.seat for w in wagers),
                occurred_at=ctx.settled.occurred_at,
                source_seq=ctx.settled.seq,
            )
        )
        return
    for wager in wagers:
        amount = times(award.value, wager.amount_cents)
        ctx.out.append(_fixed(ctx, facts, wager, name, shown(hand), amount, award.value))


def _fixed(  # noqa: PLR0917 - the reference's `_fixed`, field for field
    ctx: Ctx,
    facts: MeterFacts,
    wager: SettledWager,
    name: str,
    cards: tuple[str, ...],
    amount_cents: int,
    for_one: Fraction | None = None,
) -> FixedAwarded:
    """649a.11(c)(8)(ii): an award at or above ``verify_for_one_from`` waits for a floorperson,
    under a hit id."""
    meter = facts.definition
    threshold = meter.progressive.verify_for_one_from
    needs_verification = for_one is not None and threshold is not None and for_one >= threshold
    label = f"dealer-seat{wager.seat}" if wager.on == DEALER else f"seat{wager.seat}"
    settled = ctx.settled
    table_id = ctx.table.table_id
    hit_id = ""
    if needs_verification:
        hit_id = f"{table_id}/{ctx.round_id}/{settled.seq}/{wager.wager}/{label}"
    return _FIXED(meter.meter_id, table_id, ctx.round_id, wager.seat, wager.wager, wager.on, name,
                  cards, amount_cents, settled.occurred_at, hit_id)  # fmt: skip


def _bonuses(ctx: Ctx, facts: MeterFacts, wagers: list[SettledWager]) -> None:
    """649a.12(i)(3) Magic Card and Lucky Bonus, as the reference's `_bonuses` pays them."""
    for name, award in facts.definition.progressive.bonuses:
        for wager in wagers:
            cards = ctx.texts(ctx.target(wager))
            if _bonus_applies(ctx, wager, name, cards):
                amount = times(award.value, wager.amount_cents)
                ctx.out.append(_fixed(ctx, facts, wager, name, cards, amount))


def _bonus_applies(ctx: Ctx, wager: SettledWager, name: str, cards: tuple[str, ...]) -> bool:
    if name == "magic_card":
        magic = ctx.settled.magic_card  # compared as text, as the reference compares it
        return magic is not None and magic.lower() in {c.lower() for c in cards}
    lucky = ctx.settled.random_seat
    if lucky is None:
        return False
    target = DEALER if wager.on == DEALER else wager.on.removeprefix("seat:")
    return lucky == (str(wager.seat) if wager.on == "own" else target)


def _envy(ctx: Ctx, facts: MeterFacts, wager: SettledWager) -> None:
    """649a.11(c)(5)(v), (7)(v), (9)(v): an Envy Bonus for each *other* player holding a
    qualifying hand, by the receiving player's wager (649a.12(e)(5)); a fold keeps the
    eligibility where the game says so (649a.11(b)(2))."""
    amount = wager.amount_cents
    amounts = facts.envy.get(amount)
    if not amounts or (wager.seat in ctx.folded and not ctx.rules.envy_survives_fold):
        return
    key = (facts.definition.meter_id, wager.wager, amount)
    qualifying = ctx.envy.get(key)
    if qualifying is None:
        suited = facts.suited_envy[amount]
        qualifying = ctx.envy[key] = _qualifying(ctx, facts, wager.wager, amounts, suited)
    for holder, name, hand in qualifying:
        if holder != wager.seat:  # never for the own hand
            table_id, at = ctx.table.table_id, ctx.settled.occurred_at
            award = _ENVY(facts.definition.meter_id, table_id, ctx.round_id, wager.seat, holder,
                          wager.wager, name, shown(hand), amounts[name], at)  # fmt: skip
            ctx.out.append(award)


def _qualifying(
    ctx: Ctx, facts: MeterFacts, kind: str, amounts: dict[str, int], suited: bool
) -> Qualifying:
    """The holders of a qualifying hand for an Envy table of ``kind`` (`_envy_holders`, but
    the receiving player's own seat, which `_envy` skips), highest seat first
    (`settlement_order`), each with the hand's first name the table lists. A table paid only
    on a hand of one suit (``suited``: `MeterFacts.suited_envy`) skips a holder whose cards
    cannot make one without forming the hand (most holders: 649a.12's Envy hands are flushes)."""
    policy, hands = ctx.config.policy, ctx.hands
    # only seats with a hand: a folded hand may have been left out of the settlement
    if policy.envy_holders == "any_dealt_hand":
        holders = set(hands)
    else:
        wagers = ctx.wagers
        holders = {w.seat for w in wagers if w.wager == kind and w.on == "own" and w.seat in hands}
    if not policy.folded_hands_hold_envy:
        holders -= ctx.folded
    source, formed_hands = facts.source, ctx.formed
    cards = ctx.cards
    dealer, community = cards.dealer, cards.community
    out: Qualifying = []
    for holder in high_first(list(holders)):
        hand = formed_hands.get((source, holder))
        if hand is None:
            if suited and not may_be_suited(source, cards.seats[holder], dealer, community):
                continue  # a hand not of one suit: no name of this table
            hand = ctx.hand(source, holder)
        for name in hand[0]:
            if name in amounts:
                out.append((holder, name, hand))
                break
    return out
