"""Checks of wagers, decisions and settlement cards against a round and its game's rules."""

from __future__ import annotations

from controller.config.floor import FloorConfig, TableDef
from controller.model.cards import parse_cards
from controller.model.errors import InvalidEvent
from controller.model.games import GAMES, GameRules
from controller.model.state import RoundState
from controller.model.table_events import DecisionMade, RoundSettled, WagerPlaced


def _fail(msg: str) -> None:
    raise InvalidEvent(msg)


def check_wager(
    config: FloorConfig, table_def: TableDef, current: RoundState, event: WagerPlaced
) -> None:
    """A wager is accepted only while the round is open, on a real seat, for a known wager."""
    if current.phase != "open":
        _fail(f"wager after wagers_locked: round {current.round_id!r} is {current.phase}")
    if not 1 <= event.seat <= table_def.seats:
        _fail(
            f"seat {event.seat} does not exist at table {table_def.table_id!r} "
            f"(seats 1 to {table_def.seats})"
        )
    rules = GAMES[current.game]
    meter_id = table_def.links.get(event.wager)
    if meter_id is None and event.wager not in rules.base_wagers:
        offered = sorted(rules.base_wagers | set(table_def.links))
        _fail(f"wager {event.wager!r} is not offered at table {table_def.table_id!r} ({offered})")
    if meter_id is not None and event.amount_cents != config.meters[meter_id].unit_cents:
        unit = config.meters[meter_id].unit_cents
        _fail(
            f"{event.wager} wager of {event.amount_cents} cents differs from the meter's wager "
            f"unit of {unit} cents"
        )
    _check_target(config, table_def, rules, event)
    for placed in current.wagers:
        if (placed.seat, placed.wager, placed.on) == (event.seat, event.wager, event.on):
            _fail(f"seat {event.seat} already has a {event.wager} wager on {event.on}")


def _check_target(
    config: FloorConfig, table_def: TableDef, rules: GameRules, event: WagerPlaced
) -> None:
    """649a.12(i)(2): Five Card Hand Bonus may ride on the dealer's hand; 671a.11(c): Lunar Poker
    Super Wagers on another player's hand or the dealer's. Everything else is on the own hand."""
    meter_id = table_def.links.get(event.wager)
    allowed = set(config.meters[meter_id].progressive.wager_on) if meter_id else {"own"}
    if event.wager in rules.wagers_on_other_hands:
        allowed |= {"dealer", "other_seat"}
    if event.on == "own" or (event.on == "dealer" and "dealer" in allowed):
        return
    if event.on.startswith("seat:") and "other_seat" in allowed:
        target = event.on.removeprefix("seat:")
        if target.isdigit() and 1 <= int(target) <= table_def.seats and int(target) != event.seat:
            return
        _fail(f"on {event.on!r} is not another seat of table {table_def.table_id!r}")
    _fail(f"a {event.wager} wager cannot be placed on {event.on!r} (allowed: {sorted(allowed)})")


def check_decision(current: RoundState, event: DecisionMade) -> None:
    """Decisions come after the lock, from a seat with an Ante, once, in the game's own terms."""
    rules = GAMES[current.game]
    if current.phase != "locked":
        _fail(f"decision needs round {current.round_id!r} locked, but it is {current.phase}")
    ante = next(
        (w.amount_cents for w in current.wagers if w.seat == event.seat and w.wager == "ante"), None
    )
    if ante is None:
        _fail(f"seat {event.seat} placed no ante in round {current.round_id!r}")
    allowed = rules.continue_actions | rules.option_actions | {"fold"}
    if event.action not in allowed:
        _fail(f"{event.action!r} is not a decision in {rules.name} ({sorted(allowed)})")
    earlier = [d.action for d in current.decisions if d.seat == event.seat]
    if any(a == "fold" or a in rules.continue_actions for a in earlier):
        _fail(f"seat {event.seat} has already decided ({earlier[-1]}); decisions are locked in")
    if event.action in rules.option_actions and earlier:
        _fail(f"seat {event.seat} has already bought an option ({earlier[-1]})")
    _check_decision_amount(rules, event, ante or 0)


def _check_decision_amount(rules: GameRules, event: DecisionMade, ante: int) -> None:
    """649a.11(b) / 679a.11(b): Play equals the Ante; 682a.11(b): Raise one to three times the
    Ante; 671a.11(b)(2)-(3): Bet twice the Ante, Options fee equal to the Ante."""
    allowed = {
        "play": {ante},
        "raise": {ante, 2 * ante, 3 * ante},
        "bet": {2 * ante},
        "buy_sixth_card": {ante},
        "draw": {ante},
    }.get(event.action)
    if allowed is not None and event.amount_cents is not None and event.amount_cents not in allowed:
        _fail(
            f"{event.action} of {event.amount_cents} cents does not match the ante of {ante} "
            f"cents (allowed {sorted(allowed)})"
        )
    if event.action == "draw" and not 2 <= len(event.discards) <= 5:
        _fail("draw must discard between two and five cards (671a.11(d)(1)(ii))")


def check_settlement(
    config: FloorConfig, table_def: TableDef, current: RoundState, event: RoundSettled
) -> None:
    """The cards at settlement: right counts for the game, no card twice, every wagering seat."""
    if current.phase != "locked":
        _fail(f"settlement of round {current.round_id!r}, which is {current.phase}, not locked")
    rules = GAMES[current.game]
    every = list(event.dealer) + list(event.community)
    for _, cards in event.seats:
        every.extend(cards)
    # The All-Six Bonus card is dealt from the deck; the Magic Card only designates a card (it
    # may be in a hand, 649a.12(i)(3)), so it is parsed but not counted as dealt.
    if event.bonus_card is not None:
        every.append(event.bonus_card)
    if event.magic_card is not None:
        parse_cards([event.magic_card])
    parsed = parse_cards(every)
    seen: set[object] = set()
    for text, card in zip(every, parsed, strict=True):
        if card in seen:
            _fail(f"card {text} appears twice in the settlement of round {current.round_id!r}")
        seen.add(card)
    _check_counts(config, table_def, rules, current, event)


def _seats_needing_cards(rules: GameRules, current: RoundState) -> set[int]:
    """Seats whose cards settlement needs: every seat with a wager still in play, and every seat
    another player wagered on. A folded hand with nothing left in play may be left out: 649a.11(c)
    collects it before the reveal."""
    folded = current.folded()
    needed = set()
    for wager in current.wagers:
        if wager.seat not in folded or wager.wager in rules.survives_fold:
            needed.add(wager.seat)
        if wager.on.startswith("seat:"):
            needed.add(int(wager.on.removeprefix("seat:")))
    return needed


def _check_counts(
    config: FloorConfig,
    table_def: TableDef,
    rules: GameRules,
    current: RoundState,
    event: RoundSettled,
) -> None:
    if len(event.dealer) not in rules.dealer_cards:
        _fail(
            f"dealer has {len(event.dealer)} cards; {rules.name} deals {sorted(rules.dealer_cards)}"
        )
    five_card = any(
        config.meters[table_def.links[w.wager]].progressive.hand == "five_card"
        for w in current.wagers
        if w.wager in table_def.links
    )
    needed = {2} if five_card and 2 in rules.community_cards else rules.community_cards
    if len(event.community) not in needed:
        _fail(f"{len(event.community)} community cards; expected {sorted(needed)}")
    wagering = {w.seat for w in current.wagers}
    dealt = {seat for seat, _ in event.seats}
    needed = _seats_needing_cards(rules, current)
    if not needed <= dealt <= wagering:
        _fail(
            f"cards given for seats {sorted(dealt)}; expected every seat with a wager still in "
            f"play {sorted(needed)} and only seats that wagered {sorted(wagering)}"
        )
    sixth = {d.seat for d in current.decisions if d.action == "buy_sixth_card"}
    for seat, cards in event.seats:
        expected = {6} if seat in sixth else rules.player_cards - {6}
        if len(cards) not in expected:
            _fail(f"seat {seat} has {len(cards)} cards; expected {sorted(expected)}")
    if event.random_seat not in (None, "dealer") and not (
        str(event.random_seat).isdigit() and int(str(event.random_seat)) in dealt
    ):
        _fail(f"random_seat {event.random_seat!r} is neither 'dealer' nor a seat that was dealt")
