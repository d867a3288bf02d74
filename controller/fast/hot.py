"""The hot table events, decided and applied on the session's mutable records.

Each decider answers only when it is sure the reference accepts the event: it runs the same
checks as `controller.rules` (``_check_sequence``, ``_check_open``, `check_wager`,
`check_decision`, the lock's contributions, `check_settlement`) and, if any fails or anything is
unusual (a wager on another seat, a meter with a ceiling, an unknown game), returns None so the
session asks the reference, which then words the refusal. An accepted event mutates the records
exactly as `controller.evolve` moves the frozen state. Settlement mirrors the reference's
`check_settlement` (`controller.fast.settle_check`) and `settle_round` (`controller.fast.settle`)
step for step on the mutable round.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.fast.lock import Priced, price_lock, record_lock
from controller.fast.payouts import apply_hit, pending_hit
from controller.fast.records import Round, Table
from controller.fast.settle_gate import sure_steps
from controller.fast.tables import TableFacts
from controller.meter import HitClaim, decide_meter
from controller.model.events import (
    Event,
    FixedAwarded,
    ProgressiveHit,
)
from controller.model.games import GAMES
from controller.model.table_events import (
    DecisionMade,
    RoundOpened,
    RoundSettled,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)

if TYPE_CHECKING:
    from controller.fast.session import Session

Answer = tuple[Event, ...] | None


def _head(s: Session, e: TableEvent) -> tuple[TableFacts, Table, Round] | None:
    """The table and its current round, if ``e`` passes `_check_sequence` and names that round;
    the round's indexes are then up to date (`Round.indexed`)."""
    return _head_of(s, e.table_id, e.round_id, e.seq, e.event_id)


def _head_of(
    s: Session, table_id: str, round_id: str, seq: int, event_id: str
) -> tuple[TableFacts, Table, Round] | None:
    """`_head` of fields already read. The session's dicts are read first: a table and its
    facts are known after the first event."""
    facts = s.table_facts.get(table_id) or s.table_def(table_id)
    table = s.tables.get(table_id) or s.table(table_id)
    if facts is None or table is None:
        return None
    current = table.round
    if (
        current is None
        or current.round_id != round_id
        or seq <= table.last_seq
        or event_id in current.indexed().event_ids
    ):
        return None
    return facts, table, current


def _accept(s: Session, table: Table, current: Round, e: TableEvent) -> None:
    current.event_ids.add(e.event_id)
    table.last_seq = e.seq
    s.dirty_tables.add(e.table_id)


def decide_open(s: Session, e: RoundOpened) -> Answer:
    """`_check_sequence` and `_check_open`, then a new round."""
    facts = s.table_def(e.table_id)
    if facts is None or e.game != facts.game:
        return None
    table = s.table(e.table_id)
    if table is None:
        if e.seq <= -1:
            return None
        table = s.new_table(e.table_id)
    else:
        current = table.round
        if e.seq <= table.last_seq or (
            current is not None
            and (
                e.event_id in current.indexed().event_ids
                or current.phase in ("open", "locked")
                or current.round_id == e.round_id
            )
        ):
            return None
    table.last_seq = e.seq
    table.round = Round.opened(e)
    s.dirty_tables.add(e.table_id)
    return (e,)


def decide_wager(s: Session, e: WagerPlaced) -> Answer:
    """`check_wager` for a wager on the own hand or the dealer's. Each field is read once (an
    attribute of a struct or a frozen event is a lookup by name from compiled code)."""
    heads = (e.table_id, e.seq, e.event_id, e.round_id)
    return decide_wager_read(s, e, heads, e.seat, e.wager, e.on)


def decide_wager_read(  # noqa: PLR0917 - the wager's fields, read by the caller
    s: Session, e: WagerPlaced, heads: tuple[str, int, str, str], seat: int, kind: str, on: str
) -> Answer:
    """`decide_wager` of fields the caller read off ``e``: ``heads`` its ``table_id``, ``seq``,
    ``event_id`` and ``round_id`` (the door reads a struct's fields at once:
    `streams.door.fast_core.decide_wager_struct`); ``e.amount_cents`` is read here if linked."""
    table_id, seq, event_id, round_id = heads
    head = _head_of(s, table_id, round_id, seq, event_id)
    if head is None:
        return None
    facts, table, current = head
    rules = GAMES.get(current.game)
    if current.phase != "open" or rules is None or not 1 <= seat <= facts.seats:
        return None
    cents = None  # a linked wager's, read for its check and kept for the lock
    if kind in facts.links:
        cents = e.amount_cents
        if cents != facts.units.get(kind):
            return None
    elif kind not in rules.base_wagers:
        return None
    if on != "own" and (
        on != "dealer" or s.config is None or not facts.dealer_allowed(s.config, rules, kind)
    ):
        return None
    # indexed by `_head_of`: the key added once, its size saying whether it was there (nothing
    # below refuses, so an accepted wager's key is added exactly when `add_placed` keeps it)
    placed = current.placed
    size = len(placed)
    placed.add((seat, kind, on))
    if len(placed) == size:
        return None
    current.add_placed(e, event_id, (seat, kind, on), cents)
    table.last_seq = seq
    s.dirty_tables.add(table_id)
    return (e,)


def decide_lock(s: Session, e: WagersLocked) -> Answer:
    """The lock and one `ContributionRecorded` per linked wager, priced (`price_lock`) before
    anything is recorded (`record_lock`), so a lock the reference must decide changes nothing."""
    head = _head(s, e)
    if head is None:
        return None
    facts, table, current = head
    if current.phase != "open":
        return None
    meters: dict[str, list[Any]] = {}  # meter_id -> as `price_lock` keeps it
    priced: list[Priced] = []
    if not price_lock(s, facts.links, current, meters, priced):
        return None
    out = record_lock(e, current, priced)
    s.dirty_meters.update(meters)
    current.phase = "locked"
    _accept(s, table, current, e)
    return out


def decide_decision(s: Session, e: DecisionMade) -> Answer:
    """`check_decision` and `_check_decision_amount`, each field read once (as `decide_wager`)."""
    table_id, seq, event_id = e.table_id, e.seq, e.event_id
    head = _head_of(s, table_id, e.round_id, seq, event_id)
    if head is None:
        return None
    _, table, current = head
    rules = GAMES.get(current.game)
    seat, action = e.seat, e.action
    ante = current.antes.get(seat)  # indexed by `_head_of`
    if current.phase != "locked" or rules is None or ante is None:
        return None
    if (
        action not in rules.continue_actions
        and action not in rules.option_actions
        and action != "fold"
    ):
        return None
    earlier = current.actions.get(seat)
    if earlier:
        if action in rules.option_actions:
            return None
        if any(a == "fold" or a in rules.continue_actions for a in earlier):
            return None
    if not _amount_ok(action, e.amount_cents, ante):
        return None
    if action == "draw" and not 2 <= len(e.discards) <= 5:
        return None
    current.add_decided(e, event_id, seat, action)
    table.last_seq = seq
    s.dirty_tables.add(table_id)
    return (e,)


def _amount_ok(action: str, amount: int | None, ante: int) -> bool:
    if amount is None:
        return True
    if action in ("play", "buy_sixth_card", "draw"):
        return amount == ante
    if action == "raise":
        return amount in (ante, 2 * ante, 3 * ante)
    if action == "bet":
        return amount == 2 * ante
    return True


def decide_settle(s: Session, e: RoundSettled) -> Answer:
    """The reference's settlement checks and awards as `settle_gate.sure_steps` finds them
    (`check_settlement` mirrored on card numbers, `settle_round` on the mutable round); meter
    hits priced by `decide_meter` against the meter as it stands at
    each one's turn (649a.12(e)(4))."""
    head = _head(s, e)
    config = s.config
    if head is None or config is None:
        return None
    facts, table, current = head
    steps = sure_steps(config, facts, current, e, s.meter_def)
    if steps is None:
        return None
    for step in steps:  # a hit is priced on its meter as this session holds it
        if isinstance(step, HitClaim):
            meter = s.meter(step.meter_id)
            if meter is None or meter.retired:
                return None
    out: list[Event] = [e]
    current.phase = "settled"
    _accept(s, table, current, e)
    for step in steps:
        if isinstance(step, HitClaim):
            meter = s.meter(step.meter_id)
            rates = s.meter_def(step.meter_id)
            assert meter is not None  # checked above
            assert rates is not None
            hit = decide_meter(meter.freeze(), rates.definition, step)
            assert isinstance(hit, ProgressiveHit)
            apply_hit(s, hit)
            out.append(hit)
        else:
            if type(step) is FixedAwarded and step.hit_id:
                pending_hit(s, step.hit_id, step.meter_id, step.amount_cents)
            out.append(step)
    return tuple(out)


Decider = Callable[["Session", Any], Answer]

#: The hot deciders by command type; any other command goes to the reference.
DECIDERS: dict[type, Decider] = {
    RoundOpened: decide_open,
    WagerPlaced: decide_wager,
    WagersLocked: decide_lock,
    DecisionMade: decide_decision,
    RoundSettled: decide_settle,
}
