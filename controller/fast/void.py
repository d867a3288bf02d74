"""A round voided on the session's mutable records (`controller.rules.table._void` and
`controller.meter._reversal`, step for step).

Before, every void went to the reference (`Session.reference`): the table and every meter frozen
into a `FloorState` (`Session._flush`), decided, folded and the touched records dropped to be
thawed again; on the engine's bench stream that was ~2.4k instructions an event for ~1.5 voids
in 1,000 events (bench/PROPOSALS.md). Here the same checks and amounts are read off the records.

A void before settlement reverses exactly that round's contributions, per meter in the order the
round first contributed to each (`controller.rules.table.per_meter`); a void never drives a meter or
its reserve below zero (rules README 6-7), the overflow is taken back first, and what could not be
taken back is said in the reason. Anything the fast path is not sure of (a void after settlement, an
unknown meter, a pending configuration) answers None, and the reference decides and words the
refusal.
Proven equal by the fast differential suites (`tests/controller/fast/`: simulated floors with
voids, before and after hits and corrections, and `test_void.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.fast.hot import DECIDERS as HOT_DECIDERS
from controller.fast.hot import Answer, Decider, _accept, _head
from controller.fast.meter_record import Meter
from controller.meter import PARTLY_REVERSED
from controller.model.events import ContributionsReversed, Event
from controller.model.table_events import RoundVoided
from controller.rules.table import per_meter

if TYPE_CHECKING:
    from controller.fast.session import Session


def decide_void(s: Session, e: RoundVoided) -> Answer:
    """`_void` and each meter's `_reversal` against the meter as this session holds it, the
    records then moved as `evolve` moves the frozen state (round voided, meters reversed)."""
    head = _head(s, e)
    if head is None or s.config is None:
        return None
    _facts, table, current = head
    if current.phase not in ("open", "locked"):  # after settlement: the reference refuses
        return None
    totals = per_meter(current.contributions)
    meters: list[tuple[Meter, int, int, int]] = []
    for meter_id, primary, reserve, count in totals:
        meter = s.meter(meter_id)
        if meter is None or s.meter_def(meter_id) is None:  # the reference's lookups fail
            return None
        meters.append((meter, primary, reserve, count))
    out: list[Event] = [e]
    for meter, primary, reserve, count in meters:
        event = _reversal(meter, e, primary, reserve, count)
        _reversed(meter, event)
        out.append(event)
    s.dirty_meters.update(meter_id for meter_id, *_ in totals)
    current.phase = "voided"
    _accept(s, table, current, e)
    return tuple(out)


def _reversal(
    meter: Meter, e: RoundVoided, primary: int, reserve: int, count: int
) -> ContributionsReversed:
    """`controller.meter._reversal` of the round's ``primary``/``reserve`` on ``meter``: only
    what the round put in and is still there (a 100% hit since the lock cleared `open_rounds`)."""
    pending = meter.open_rounds.get(e.table_id)
    held = pending[1:] if pending is not None and pending[0] == e.round_id else (0, 0)
    pool = meter.amount_sub + meter.overflow_sub
    taken = max(0, min(primary, held[0], pool))
    from_overflow = min(taken, max(0, meter.overflow_sub))
    reserve_taken = max(0, min(reserve, held[1], meter.reserve_sub))
    reason = e.reason
    if (taken, reserve_taken) != (primary, reserve):
        reason += PARTLY_REVERSED
    return ContributionsReversed(
        meter_id=meter.meter_id,
        table_id=e.table_id,
        round_id=e.round_id,
        primary_sub=taken,
        reserve_sub=reserve_taken,
        count=count,
        reason=reason,
        meter_seq=meter.seq + 1,
        occurred_at=e.occurred_at,
        requested_primary_sub=primary,
        requested_reserve_sub=reserve,
        overflow_sub=from_overflow,
    )


def _reversed(meter: Meter, event: ContributionsReversed) -> None:
    """`controller.meter_evolve._reversed`: the table's open round closed, the overflow's part
    out of the overflow, the rest out of the meter."""
    meter.open_rounds.pop(event.table_id, None)
    meter.amount_sub += event.overflow_sub - event.primary_sub
    meter.overflow_sub -= event.overflow_sub
    meter.reserve_sub -= event.reserve_sub
    meter.corrected_sub -= event.primary_sub + event.reserve_sub
    meter.seq = event.meter_seq


#: Every decider the session asks first: the hot ones and the void.
DECIDERS: Final[dict[type, Decider]] = {**HOT_DECIDERS, RoundVoided: decide_void}
