"""The meter stage: the single writer of each meter.

The table stage (`controller.rules.settlement`) says *what* is owed to a meter (claims); this
stage says *how much*, from the meter as it stands at that moment. Keeping the two apart is what
lets the Kafka engine partition rounds by table and meters by meter, and it is what makes
649a.12(e)(4) hold: a progressive is paid "in accordance with the amount on the meter when it is
the player's turn", so a second winner of the same meter is paid from the meter after the first
payout and reset. The claims themselves are in `controller.claims`, and the fold that applies
meter events in `controller.meter_evolve` (both re-exported here, where callers import them from).
"""

from __future__ import annotations

from typing import assert_never

from controller.ceiling import DivertClaim, split_at_ceiling
from controller.claims import AnyClaim, ContributionClaim, HitClaim, MeterClaim, ReversalClaim
from controller.config.floor import MeterDef
from controller.meter_evolve import evolve_meter
from controller.model.events import (
    AwardShare,
    ContributionDiverted,
    ContributionRecorded,
    ContributionsReversed,
    MeterEvent,
    MeterSeeded,
    ProgressiveHit,
)
from controller.model.money import SUBUNITS_PER_CENT, percent_of_meter_cents
from controller.model.state import MeterState

__all__ = [
    "PARTLY_REVERSED",
    "AnyClaim",
    "ContributionClaim",
    "HitClaim",
    "MeterClaim",
    "ReversalClaim",
    "decide_meter",
    "evolve_meter",
    "seed_meter",
    "split_equally",
]

#: Added to a reversal's reason when less than the voided round contributed is taken back.
PARTLY_REVERSED = (
    "; only part reversed: the rest was already paid out by a hit, corrected away or "
    "diverted to another meter above the ceiling"
)


def seed_meter(meter: MeterState, definition: MeterDef, occurred_at: str) -> MeterSeeded:
    """The opening seed of a new meter (649a.12(e)(3), (h)(3), (i)(4), (j)(3))."""
    return MeterSeeded(
        meter_id=meter.meter_id,
        amount_sub=definition.seed_subunits,
        meter_seq=meter.seq + 1,
        occurred_at=occurred_at,
    )


def decide_meter(meter: MeterState, definition: MeterDef, claim: AnyClaim) -> MeterEvent:
    """Turn one claim into the meter event that settles it, from the meter as it stands."""
    match claim:
        case ContributionClaim():
            return _contribution(meter, definition, claim)
        case DivertClaim():
            return _diverted(meter, definition, claim)
        case ReversalClaim():
            return _reversal(meter, claim)
        case HitClaim():
            return _hit(meter, definition, claim)
        case _:
            assert_never(claim)


def _contribution(
    meter: MeterState, definition: MeterDef, claim: ContributionClaim
) -> ContributionRecorded:
    """Primary to the meter and reserve to the reserve, exactly as the table stage computed them
    (the table stage remembers the same amounts, so a void reverses exactly these). The part of the
    primary above the ceiling goes to the overflow or on to another meter; the reserve is never
    capped."""
    _, overflow, diverted = split_at_ceiling(meter, definition, claim.primary_sub)
    return ContributionRecorded(
        meter_id=claim.meter_id,
        table_id=claim.table_id,
        round_id=claim.round_id,
        seat=claim.seat,
        wager=claim.wager,
        on=claim.on,
        wager_cents=claim.wager_cents,
        primary_sub=claim.primary_sub,
        reserve_sub=claim.reserve_sub,
        meter_seq=meter.seq + 1,
        occurred_at=claim.occurred_at,
        overflow_sub=overflow,
        diverted_sub=diverted,
        divert_to=definition.divert_to if diverted else "",
    )


def _diverted(meter: MeterState, definition: MeterDef, claim: DivertClaim) -> ContributionDiverted:
    """Another meter's excess arriving here, capped by this meter's own ceiling in turn."""
    _, overflow, diverted = split_at_ceiling(meter, definition, claim.amount_sub)
    return ContributionDiverted(
        meter_id=claim.meter_id,
        from_meter_id=claim.from_meter_id,
        table_id=claim.table_id,
        round_id=claim.round_id,
        amount_sub=claim.amount_sub,
        meter_seq=meter.seq + 1,
        occurred_at=claim.occurred_at,
        overflow_sub=overflow,
        diverted_sub=diverted,
        divert_to=definition.divert_to if diverted else "",
    )


def _reversal(meter: MeterState, claim: ReversalClaim) -> ContributionsReversed:
    """Take back what the voided round put into this meter and is still there.

    A 100% hit since the lock paid those contributions out (`open_rounds` was cleared), and a
    correction may have left less on the meter; a void never drives a meter or its reserve below
    zero (rules README 6-7). The round's latest contributions were the ones above the ceiling, so
    they are taken back from the overflow first; a part diverted to another meter stays there.
    What could not be taken back is stated in the reason.
    """
    pending = meter.open_rounds.get(claim.table_id)
    held = pending[1:] if pending is not None and pending[0] == claim.round_id else (0, 0)
    pool = meter.amount_sub + meter.overflow_sub
    primary = max(0, min(claim.primary_sub, held[0], pool))
    from_overflow = min(primary, max(0, meter.overflow_sub))
    reserve = max(0, min(claim.reserve_sub, held[1], meter.reserve_sub))
    reason = claim.reason
    if (primary, reserve) != (claim.primary_sub, claim.reserve_sub):
        reason += PARTLY_REVERSED
    return ContributionsReversed(
        meter_id=claim.meter_id,
        table_id=claim.table_id,
        round_id=claim.round_id,
        primary_sub=primary,
        reserve_sub=reserve,
        count=claim.count,
        reason=reason,
        meter_seq=meter.seq + 1,
        occurred_at=claim.occurred_at,
        requested_primary_sub=claim.primary_sub,
        requested_reserve_sub=claim.reserve_sub,
        overflow_sub=from_overflow,
    )


def split_equally(total_cents: int, recipients: tuple[int, ...]) -> tuple[AwardShare, ...]:
    """Divide a dealer-hand jackpot equally (649a.12(i)(2)), parts summing exactly to the total.

    Policy for indivisible cents: the remainder goes one cent each to the first recipients in
    settlement order (farthest to the dealer's right first, 649a.11(c)), so the split is
    deterministic and never differs by more than one cent between players.
    """
    base, remainder = divmod(total_cents, len(recipients))
    return tuple(
        AwardShare(seat=seat, amount_cents=base + (1 if index < remainder else 0))
        for index, seat in enumerate(recipients)
    )


def _hit(meter: MeterState, definition: MeterDef, claim: HitClaim) -> ProgressiveHit:
    """Pay a share of the meter in whole cents, rounded down; the sub-cent rest stays on the meter.

    A 100% award resets the meter to its reseed plus the reserve (649a.12(i)(4); rules README 6-7)
    plus the overflow; what would start it above its ceiling stays in the overflow (NY 5320.8).
    The award is priced from the meter, never the overflow.
    """
    amount_cents = percent_of_meter_cents(meter.amount_sub, claim.share)
    after = meter.amount_sub - amount_cents * SUBUNITS_PER_CENT
    reserve_after, reseed, overflow_after = meter.reserve_sub, 0, meter.overflow_sub
    if claim.share == 1:
        reseed = definition.reseed_subunits
        after += reseed + meter.reserve_sub + meter.overflow_sub
        ceiling = definition.ceiling_sub
        overflow_after = 0 if ceiling is None else max(0, after - ceiling)
        after, reserve_after = after - overflow_after, 0
    label = "dealer" if claim.on == "dealer" else f"seat{claim.recipients[0]}"
    return ProgressiveHit(
        # The settlement's seq makes the id unique even if a device reuses a round id.
        hit_id=f"{claim.table_id}/{claim.round_id}/{claim.source_seq}/{claim.wager}/{label}",
        meter_id=claim.meter_id,
        table_id=claim.table_id,
        round_id=claim.round_id,
        wager=claim.wager,
        on=claim.on,
        hand=claim.hand,
        cards=claim.cards,
        share=f"{claim.share * 100}%",
        amount_cents=amount_cents,
        winners=split_equally(amount_cents, claim.recipients),
        meter_before_sub=meter.amount_sub,
        meter_after_sub=after,
        reserve_before_sub=meter.reserve_sub,
        reserve_after_sub=reserve_after,
        reseed_sub=reseed,
        meter_seq=meter.seq + 1,
        occurred_at=claim.occurred_at,
        reset=claim.share == 1,
        overflow_before_sub=meter.overflow_sub,
        overflow_after_sub=overflow_after,
    )
