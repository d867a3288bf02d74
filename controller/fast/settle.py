"""`controller.rules.settlement.settle_round`, step for step, on the session's mutable round and
with hands formed by `controller.fast.hands.form`.

The order and content of the steps are the reference's (649a.11(c): wager kinds in order, players
from the farthest to the dealer's right, the own-hand wager, its Envy Bonuses, then bonuses; the
dealer-hand jackpot at the policy's turn); each function below names the reference function it
mirrors. A card the fast former cannot read raises `LookupError`, and the session then lets the
reference settle the round.
"""

from __future__ import annotations

from fractions import Fraction

from controller.config.floor import Award, FloorConfig, MeterDef, TableDef
from controller.fast.hands import form
from controller.fast.records import Round
from controller.fast.shapes import WagerLike
from controller.meter import HitClaim
from controller.model.events import EnvyAwarded, FixedAwarded
from controller.model.games import GAMES, PROGRESSIVE_WAGERS, GameRules
from controller.model.table_events import RoundSettled
from controller.rules.hand_forming import FormedHand
from controller.rules.settlement import SettlementStep


class _Ctx:
    __slots__ = (
        "config",
        "folded",
        "hands",
        "out",
        "round_id",
        "rules",
        "settled",
        "table",
        "wagers",
    )

    def __init__(
        self, config: FloorConfig, table: TableDef, current: Round, settled: RoundSettled
    ) -> None:
        self.config = config
        self.table = table
        self.round_id = current.round_id
        self.wagers = current.wagers
        self.settled = settled
        self.hands = dict(settled.seats)
        self.folded = frozenset(d.seat for d in current.decisions if d.action == "fold")
        self.rules: GameRules = GAMES[current.game]
        self.out: list[SettlementStep] = []

    def forfeited(self, wager: WagerLike) -> bool:
        """`_forfeited`."""
        return wager.seat in self.folded and wager.wager not in self.rules.survives_fold

    def target_cards(self, wager: WagerLike) -> tuple[str, ...]:
        """`_target_cards`."""
        on = wager.on
        if on == "dealer":
            return self.settled.dealer
        seat = int(on.removeprefix("seat:")) if on.startswith("seat:") else wager.seat
        return self.hands[seat]

    def form(self, meter: MeterDef, cards: tuple[str, ...]) -> FormedHand:
        """`_form`."""
        settled = self.settled
        return form(meter.progressive.hand, cards, settled.dealer, settled.community)


def settle(
    config: FloorConfig, table: TableDef, current: Round, settled: RoundSettled
) -> list[SettlementStep]:
    """`settle_round`: every progressive award of the round, in settlement order."""
    ctx = _Ctx(config, table, current, settled)
    for kind in PROGRESSIVE_WAGERS:
        meter_id = table.links.get(kind)
        # A mystery level is won by its trigger at the lock (`controller.mystery`), not by a hand.
        if meter_id is None or config.meters[meter_id].mystery:
            continue
        wagers = [w for w in current.wagers if w.wager == kind]
        if wagers:
            _settle_kind(ctx, config.meters[meter_id], wagers)
    return ctx.out


def _settle_kind(ctx: _Ctx, meter: MeterDef, wagers: list[WagerLike]) -> None:
    policy = ctx.config.policy.dealer_hand_turn
    order = sorted({w.seat for w in wagers}, reverse=True)  # `settlement_order`
    in_order = sorted(wagers, key=lambda w: -w.seat)  # `_in_order` (a stable sort, too)
    dealer_wagers = [w for w in in_order if w.on == "dealer" and not ctx.forfeited(w)]
    dealer_turn = dealer_wagers[0].seat if dealer_wagers else None
    for seat in order:
        if seat == dealer_turn and policy == "first_wagerer_before_own":
            _dealer_hand(ctx, meter, dealer_wagers)
        for wager in wagers:
            if wager.seat == seat and wager.on != "dealer":
                _own_or_other_hand(ctx, meter, wager)
        if seat == dealer_turn and policy == "first_wagerer_after_own":
            _dealer_hand(ctx, meter, dealer_wagers)
    if policy == "after_all_players" and dealer_wagers:
        _dealer_hand(ctx, meter, dealer_wagers)


def _paying(meter: MeterDef, hand: FormedHand) -> tuple[str, Award] | None:
    pays = dict(meter.progressive.pays)
    for name in hand.names:
        if name in pays:
            return name, pays[name]
    return None


def _own_or_other_hand(ctx: _Ctx, meter: MeterDef, wager: WagerLike) -> None:
    if not ctx.forfeited(wager):
        hand = ctx.form(meter, ctx.target_cards(wager))
        _award(ctx, meter, [wager], hand)
        _bonuses(ctx, meter, [wager])
    if wager.on == "own":
        _envy(ctx, meter, wager)


def _dealer_hand(ctx: _Ctx, meter: MeterDef, wagers: list[WagerLike]) -> None:
    hand = ctx.form(meter, ctx.settled.dealer)
    _award(ctx, meter, wagers, hand)
    _bonuses(ctx, meter, wagers)


def _award(ctx: _Ctx, meter: MeterDef, wagers: list[WagerLike], hand: FormedHand) -> None:
    paying = _paying(meter, hand)
    if paying is None:
        return
    name, award = paying
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
                cards=hand.cards,
                share=award.value,
                recipients=tuple(w.seat for w in wagers),
                occurred_at=ctx.settled.occurred_at,
                source_seq=ctx.settled.seq,
            )
        )
        return
    for wager in wagers:
        amount = int(award.value * wager.amount_cents)
        ctx.out.append(_fixed(ctx, meter, wager, name, hand.cards, amount, award.value))


def _fixed(  # noqa: PLR0917 - the reference's `_fixed`, field for field
    ctx: _Ctx,
    meter: MeterDef,
    wager: WagerLike,
    name: str,
    cards: tuple[str, ...],
    amount_cents: int,
    for_one: Fraction | None = None,
) -> FixedAwarded:
    threshold = meter.progressive.verify_for_one_from
    needs_verification = for_one is not None and threshold is not None and for_one >= threshold
    label = f"dealer-seat{wager.seat}" if wager.on == "dealer" else f"seat{wager.seat}"
    settled = ctx.settled
    table_id = ctx.table.table_id
    return FixedAwarded(
        hit_id=f"{table_id}/{ctx.round_id}/{settled.seq}/{wager.wager}/{label}"
        if needs_verification
        else "",
        meter_id=meter.meter_id,
        table_id=table_id,
        round_id=ctx.round_id,
        seat=wager.seat,
        wager=wager.wager,
        on=wager.on,
        hand=name,
        cards=cards,
        amount_cents=amount_cents,
        occurred_at=settled.occurred_at,
    )


def _bonuses(ctx: _Ctx, meter: MeterDef, wagers: list[WagerLike]) -> None:
    """649a.12(i)(3) Magic Card and Lucky Bonus, as the reference's `_bonuses` pays them."""
    for name, award in ctx.config.meters[meter.meter_id].progressive.bonuses:
        for wager in wagers:
            cards = ctx.target_cards(wager)
            if _bonus_applies(ctx, wager, name, cards):
                amount = int(award.value * wager.amount_cents)
                ctx.out.append(_fixed(ctx, meter, wager, name, cards, amount))


def _bonus_applies(ctx: _Ctx, wager: WagerLike, name: str, cards: tuple[str, ...]) -> bool:
    if name == "magic_card":
        magic = ctx.settled.magic_card
        return magic is not None and magic.lower() in {c.lower() for c in cards}
    lucky = ctx.settled.random_seat
    if lucky is None:
        return False
    target = "dealer" if wager.on == "dealer" else wager.on.removeprefix("seat:")
    return lucky == (str(wager.seat) if wager.on == "own" else target)


def _envy(ctx: _Ctx, meter: MeterDef, wager: WagerLike) -> None:
    """649a.11(c)(5)(v), (7)(v), (9)(v): as the reference's `_envy`."""
    table = meter.progressive.envy.get(wager.amount_cents, ())
    if not table or (wager.seat in ctx.folded and not ctx.rules.envy_survives_fold):
        return
    amounts = dict(table)
    for holder in sorted(_envy_holders(ctx, wager), reverse=True):
        hand = ctx.form(meter, ctx.hands[holder])
        name = next((n for n in hand.names if n in amounts), None)
        if name is not None:
            ctx.out.append(
                EnvyAwarded(
                    meter_id=meter.meter_id,
                    table_id=ctx.table.table_id,
                    round_id=ctx.round_id,
                    seat=wager.seat,
                    holder_seat=holder,
                    wager=wager.wager,
                    hand=name,
                    cards=hand.cards,
                    amount_cents=amounts[name],
                    occurred_at=ctx.settled.occurred_at,
                )
            )


def _envy_holders(ctx: _Ctx, wager: WagerLike) -> set[int]:
    policy = ctx.config.policy
    if policy.envy_holders == "any_dealt_hand":
        holders = set(ctx.hands)
    else:
        holders = {w.seat for w in ctx.wagers if w.wager == wager.wager and w.on == "own"}
    holders.discard(wager.seat)
    if not policy.folded_hands_hold_envy:
        holders -= ctx.folded
    return holders & set(ctx.hands)
