"""Ceilings with overflow (NY 9 NYCRR 5320.8, N.J.A.C. 13:69E-1.39A): how much of what arrives on a
meter it keeps, and where the rest goes. Pure; used by the meter stage (`controller.meter`) and by
reconciliation to re-check a recorded split.

A meter with a ceiling never shows or pays more. What a contribution would put above it is
carried in the meter's overflow (``overflow = "carry"``), or contributed on to another meter
(``overflow = "divert:<meter_id>"``), whose own ceiling applies in turn (configuration refuses
loops). The reserve is never capped.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.config.floor import MeterDef
from controller.model.events import ContributionDiverted, ContributionRecorded, MeterEvent
from controller.model.state import MeterState


@dataclass(frozen=True, slots=True, kw_only=True)
class DivertClaim:
    """What a contribution would have put above another meter's ceiling, owed to this meter
    (``overflow = "divert:<meter_id>"``). Made by the meter stage, not the table stage."""

    meter_id: str
    from_meter_id: str
    table_id: str
    round_id: str
    amount_sub: int
    occurred_at: str


def onward_claim(event: MeterEvent) -> DivertClaim | None:
    """The claim a contribution's diverted part makes on the next meter, if any."""
    if not isinstance(event, ContributionRecorded | ContributionDiverted) or not event.diverted_sub:
        return None
    return DivertClaim(
        meter_id=event.divert_to,
        from_meter_id=event.meter_id,
        table_id=event.table_id,
        round_id=event.round_id,
        amount_sub=event.diverted_sub,
        occurred_at=event.occurred_at,
    )


def split_at_ceiling(meter: MeterState, definition: MeterDef, amount: int) -> tuple[int, int, int]:
    """(kept on the meter, carried in overflow, diverted) for ``amount`` arriving on the meter.

    The meter stops at its ceiling; the rest is carried or diverted (NY 5320.8, NJ 13:69E-1.39A).
    A meter already above its ceiling (a ceiling lowered at a safe point) keeps nothing more.
    """
    ceiling = definition.ceiling_sub
    if ceiling is None:
        return amount, 0, 0
    kept = max(0, min(amount, ceiling - meter.amount_sub))
    excess = amount - kept
    return (kept, 0, excess) if definition.divert_to else (kept, excess, 0)
