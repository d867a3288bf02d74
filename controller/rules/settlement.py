"""Settling a round's progressive wagers, in the order the rules require.

Output is an ordered tuple of steps: fixed awards and Envy Bonuses are complete events, while a
percentage-of-meter award is a `HitClaim` that the meter stage prices at its turn. Order:

* wager kinds in 649a.11(c) order: (5) Progressive Payout, (7) Five-Card, (8) Five Card Hand Bonus,
  (9) 5 of 6 (`controller.model.games.PROGRESSIVE_WAGERS`);
* within a kind, players from the farthest to the dealer's right, counterclockwise (649a.11(c));
* within a player's turn: the own-hand wager, that player's Envy Bonuses (649a.11(c)(5)(v)), then
any
  bonus awards; the dealer-hand jackpot at the turn the policy `dealer_hand_turn` names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from controller.config.floor import Award, FloorConfig, MeterDef, TableDef
from controller.meter import HitClaim
from controller.model.events import EnvyAwarded, FixedAwarded
from controller.model.games import GAMES, PROGRESSIVE_WAGERS, settlement_order
from controller.model.state import RoundState
from controller.model.table_events import RoundSettled, WagerPlaced
from controller.rules.hand_forming import FormedHand, form_hand

SettlementStep = HitClaim | FixedAwarded | EnvyAwarded


@dataclass(frozen=True, slots=True, kw_only=True)
class _Context:
    config: FloorConfig
    table: TableDef
    round: RoundState
    settled: RoundSettled
    hands: dict[int, tuple[str, ...]]
    folded: frozenset[int]


def settle_round(
    config: FloorConfig, table: TableDef, round_state: RoundState, settled: RoundSettled
) -> tuple[SettlementStep, ...]:
    """Every progressive award of a round, in settlement order."""
    ctx = _Context(
        config=config,
        table=table,
        round=round_state,
        settled=settled,
        hands=dict(settled.seats),
        folded=round_state.folded(),
    )
    steps: list[SettlementStep] = []
    for kind in PROGRESSIVE_WAGERS:
        meter_id = table.links.get(kind)
        wagers = tuple(w for w in round_state.wagers if w.wager == kind)
        # A mystery level is won by its trigger at the lock (`controller.mystery`), not by a hand.
        if meter_id is not None and wagers and not config.meters[meter_id].mystery:
            steps.extend(_settle_kind(ctx, config.meters[meter_id], wagers))
    return tuple(steps)


def _forfeited(ctx: _Context, wager: WagerPlaced) -> bool:
    """649a.11(b), 679a.11(b), 682a.11(b): a fold forfeits the wagers the game does not protect."""
    rules = GAMES[ctx.round.game]
    return wager.seat in ctx.folded and wager.wager not in rules.survives_fold


def _settle_kind(
    ctx: _Context, meter: MeterDef, wagers: tuple[WagerPlaced, ...]
) -> Iterator[SettlementStep]:
    policy = ctx.config.policy.dealer_hand_turn
    dealer_wagers = tuple(
        w for w in _in_order(wagers) if w.on == "dealer" and not _forfeited(ctx, w)
    )
    dealer_turn = dealer_wagers[0].seat if dealer_wagers else None
    for seat in settlement_order({w.seat for w in wagers}):
        if seat == dealer_turn and policy == "first_wagerer_before_own":
            yield from _dealer_hand(ctx, meter, dealer_wagers)
        for wager in (w for w in wagers if w.seat == seat and w.on != "dealer"):
            yield from _own_or_other_hand(ctx, meter, wager)
        if seat == dealer_turn and policy == "first_wagerer_after_own":
            yield from _dealer_hand(ctx, meter, dealer_wagers)
    if policy == "after_all_players" and dealer_wagers:
        yield from _dealer_hand(ctx, meter, dealer_wagers)


def _in_order(wagers: tuple[WagerPlaced, ...]) -> tuple[WagerPlaced, ...]:
    order = settlement_order({w.seat for w in wagers})
    return tuple(sorted(wagers, key=lambda w: order.index(w.seat)))


def _target_cards(ctx: _Context, wager: WagerPlaced) -> tuple[str, ...]:
    if wager.on == "dealer":
        return ctx.settled.dealer
    seat = int(wager.on.removeprefix("seat:")) if wager.on.startswith("seat:") else wager.seat
    return ctx.hands[seat]


def _form(ctx: _Context, meter: MeterDef, cards: tuple[str, ...]) -> FormedHand:
    return form_hand(meter.progressive.hand, cards, ctx.settled.dealer, ctx.settled.community)


def _paying(meter: MeterDef, hand: FormedHand) -> tuple[str, Award] | None:
    """Only the highest hand formed is paid (649a.12(e)(2), (h)(2), (i)(2), (j)(2)): the hand's
    most specific paytable name wins, and a best hand with no line in the paytable pays nothing."""
    pays = dict(meter.progressive.pays)
    for name in hand.names:
        if name in pays:
            return name, pays[name]
    return None


def _own_or_other_hand(
    ctx: _Context, meter: MeterDef, wager: WagerPlaced
) -> Iterator[SettlementStep]:
    if not _forfeited(ctx, wager):
        hand = _form(ctx, meter, _target_cards(ctx, wager))
        yield from _award(ctx, meter, (wager,), hand)
        yield from _bonuses(ctx, meter, (wager,))
    if wager.on == "own":
        yield from _envy(ctx, meter, wager)


def _dealer_hand(
    ctx: _Context, meter: MeterDef, wagers: tuple[WagerPlaced, ...]
) -> Iterator[SettlementStep]:
    """649a.12(i)(2): each player who wagered on the dealer's hand is paid on it; a percentage of
    the meter is one jackpot divided equally among them (`controller.meter.split_equally`)."""
    hand = _form(ctx, meter, ctx.settled.dealer)
    yield from _award(ctx, meter, wagers, hand)
    yield from _bonuses(ctx, meter, wagers)


def _award(
    ctx: _Context, meter: MeterDef, wagers: tuple[WagerPlaced, ...], hand: FormedHand
) -> Iterator[SettlementStep]:
    paying = _paying(meter, hand)
    if paying is None:
        return
    name, award = paying
    first = wagers[0]
    if award.kind == "meter_percent":
        yield HitClaim(
            meter_id=meter.meter_id,
            table_id=ctx.table.table_id,
            round_id=ctx.round.round_id,
            wager=first.wager,
            on=first.on,
            hand=name,
            cards=hand.cards,
            share=award.value,
            recipients=tuple(w.seat for w in wagers),
            occurred_at=ctx.settled.occurred_at,
            source_seq=ctx.settled.seq,
        )
        return
    for wager in wagers:
        yield _fixed(
            ctx,
            meter=meter,
            wager=wager,
            name=name,
            for_one=award.value,
            cards=hand.cards,
            amount_cents=int(award.value * wager.amount_cents),
        )


def _fixed(
    ctx: _Context,
    *,
    meter: MeterDef,
    wager: WagerPlaced,
    name: str,
    cards: tuple[str, ...],
    amount_cents: int,
    for_one: Fraction | None = None,
) -> FixedAwarded:
    threshold = meter.progressive.verify_for_one_from
    needs_verification = for_one is not None and threshold is not None and for_one >= threshold
    label = f"dealer-seat{wager.seat}" if wager.on == "dealer" else f"seat{wager.seat}"
    return FixedAwarded(
        hit_id=f"{ctx.table.table_id}/{ctx.round.round_id}/{ctx.settled.seq}/{wager.wager}/{label}"
        if needs_verification
        else "",
        meter_id=meter.meter_id,
        table_id=ctx.table.table_id,
        round_id=ctx.round.round_id,
        seat=wager.seat,
        wager=wager.wager,
        on=wager.on,
        hand=name,
        cards=cards,
        amount_cents=amount_cents,
        occurred_at=ctx.settled.occurred_at,
    )


def _bonuses(
    ctx: _Context, meter: MeterDef, wagers: tuple[WagerPlaced, ...]
) -> Iterator[FixedAwarded]:
    """649a.12(i)(3) Magic Card (20 for 1) and Lucky Bonus (5 for 1).

    The text names the awards but not their triggers; policy (documented in README): the Magic Card
    pays a wager whose hand's own cards include the designated ``magic_card``, and the Lucky Bonus
    pays every wager on the hand drawn as ``random_seat`` ("dealer" or a seat number).
    """
    for name, award in ctx.config.meters[meter.meter_id].progressive.bonuses:
        for wager in wagers:
            cards = _target_cards(ctx, wager)
            if _bonus_applies(ctx, wager, name, cards):
                amount = int(award.value * wager.amount_cents)
                yield _fixed(
                    ctx, meter=meter, wager=wager, name=name, cards=cards, amount_cents=amount
                )


def _bonus_applies(ctx: _Context, wager: WagerPlaced, name: str, cards: tuple[str, ...]) -> bool:
    if name == "magic_card":
        magic = ctx.settled.magic_card
        return magic is not None and magic.lower() in {c.lower() for c in cards}
    lucky = ctx.settled.random_seat
    if lucky is None:
        return False
    target = "dealer" if wager.on == "dealer" else wager.on.removeprefix("seat:")
    return lucky == (str(wager.seat) if wager.on == "own" else target)


def _envy(ctx: _Context, meter: MeterDef, wager: WagerPlaced) -> Iterator[EnvyAwarded]:
    """649a.11(c)(5)(v), (7)(v), (9)(v): an Envy Bonus for each *other* player holding a qualifying
    hand, by the receiving player's wager (649a.12(e)(5)); never for the own hand or the dealer's;
    a fold keeps the eligibility where the game says so (649a.11(b)(2))."""
    table = meter.progressive.envy.get(wager.amount_cents, ())
    rules = GAMES[ctx.round.game]
    if not table or (wager.seat in ctx.folded and not rules.envy_survives_fold):
        return
    amounts = dict(table)
    for holder in settlement_order(_envy_holders(ctx, wager)):
        hand = _form(ctx, meter, ctx.hands[holder])
        name = next((n for n in hand.names if n in amounts), None)
        if name is not None:
            yield EnvyAwarded(
                meter_id=meter.meter_id,
                table_id=ctx.table.table_id,
                round_id=ctx.round.round_id,
                seat=wager.seat,
                holder_seat=holder,
                wager=wager.wager,
                hand=name,
                cards=hand.cards,
                amount_cents=amounts[name],
                occurred_at=ctx.settled.occurred_at,
            )


def _envy_holders(ctx: _Context, wager: WagerPlaced) -> set[int]:
    if ctx.config.policy.envy_holders == "any_dealt_hand":
        holders = set(ctx.hands)
    else:
        holders = {w.seat for w in ctx.round.wagers if w.wager == wager.wager and w.on == "own"}
    holders.discard(wager.seat)
    if not ctx.config.policy.folded_hands_hold_envy:
        holders -= ctx.folded
    return holders & set(ctx.hands)  # a folded hand may have been left out of the settlement
