"""What ``evolve`` does to a meter and the hits when a meter pays or is seeded, on the session's
records.

Its own module because two callers write these the same way: the deciders of `controller.fast.hot`
(a settlement's hits and verified fixed awards) and the appliers of `controller.fast.apply` (the
same events replayed); `controller.fast.session` keeps the records and the hand-off to the
reference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.model.events import MeterSeeded, ProgressiveHit
from controller.model.money import SUBUNITS_PER_CENT
from controller.model.state import HitState

if TYPE_CHECKING:
    from controller.fast.session import Session


def pending_hit(s: Session, hit_id: str, meter_id: str, amount_cents: int) -> None:
    """`evolve`'s `_pending_hit`."""
    s.hits[hit_id] = HitState(
        hit_id=hit_id, meter_id=meter_id, amount_cents=amount_cents, status="pending_validation"
    )
    s.dirty_hits.add(hit_id)


def apply_hit(s: Session, event: ProgressiveHit) -> None:
    """`evolve` of a `ProgressiveHit`: the meter pays (and resets), the hit waits."""
    meter = s.meter_or_new(event.meter_id)
    if event.reset:
        meter.open_rounds = {}
    meter.amount_sub = event.meter_after_sub
    meter.reserve_sub = event.reserve_after_sub
    meter.overflow_sub = event.overflow_after_sub
    meter.seeded_sub += event.reseed_sub
    meter.paid_sub += event.amount_cents * SUBUNITS_PER_CENT
    meter.hits += 1
    meter.seq = event.meter_seq
    s.dirty_meters.add(event.meter_id)
    pending_hit(s, event.hit_id, event.meter_id, event.amount_cents)


def apply_seed(s: Session, event: MeterSeeded) -> None:
    """`evolve_meter` of a `MeterSeeded`."""
    meter = s.meter_or_new(event.meter_id)
    meter.amount_sub += event.amount_sub
    meter.seeded_sub += event.amount_sub
    meter.seq = event.meter_seq
    s.dirty_meters.add(event.meter_id)
