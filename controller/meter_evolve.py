"""The meter stage's evolve: how each meter event moves a meter's counters.

Kept apart from `controller.meter` (which decides) because it is the fold every reader replays —
the live engines, the Kafka dump and signage projector, the reconciliation ledger — and none of
them needs the deciding half. One small function per event kind, so each counter's arithmetic can
be read against the event that states it; `evolve_meter` only dispatches by type, and `mypy` checks
the dispatch is exhaustive. Re-exported by `controller.meter`, where callers import it from.
"""

from __future__ import annotations

from typing import assert_never

from immutables import Map

from controller.model.events import (
    ContributionDiverted,
    ContributionRecorded,
    ContributionsReversed,
    MeterCorrected,
    MeterEvent,
    MeterSeeded,
    MeterTransferredIn,
    MeterTransferredOut,
    ProgressiveHit,
)
from controller.model.money import SUBUNITS_PER_CENT
from controller.model.state import MeterState, fast_replace

__all__ = ["evolve_meter"]


def evolve_meter(meter: MeterState, event: MeterEvent) -> MeterState:
    """Apply a meter event; never raises, never decides."""
    match event:
        case MeterSeeded():
            return _seeded(meter, event)
        case ContributionRecorded():
            return _contributed(meter, event)
        case ContributionDiverted():
            return _diverted_in(meter, event)
        case ContributionsReversed():
            return _reversed(meter, event)
        case ProgressiveHit():
            return _hit(meter, event)
        case MeterCorrected():
            return _corrected(meter, event)
        case MeterTransferredOut():
            return _transferred_out(meter, event)
        case MeterTransferredIn():
            return _transferred_in(meter, event)
        case _:
            assert_never(event)


def _seeded(meter: MeterState, event: MeterSeeded) -> MeterState:
    """A seed is money put on the meter by the operator, counted as seeded."""
    return fast_replace(
        meter,
        amount_sub=meter.amount_sub + event.amount_sub,
        seeded_sub=meter.seeded_sub + event.amount_sub,
        seq=event.meter_seq,
    )


def _contributed(meter: MeterState, event: ContributionRecorded) -> MeterState:
    """The primary lands on the meter less what went above the ceiling (to the overflow, or on to
    another meter, which counts as transferred out); the round is remembered so a void can take
    exactly this back."""
    return fast_replace(
        meter,
        open_rounds=_with_contribution(meter.open_rounds, event),
        amount_sub=meter.amount_sub + event.primary_sub - event.overflow_sub - event.diverted_sub,
        reserve_sub=meter.reserve_sub + event.reserve_sub,
        overflow_sub=meter.overflow_sub + event.overflow_sub,
        contributed_sub=meter.contributed_sub + event.primary_sub + event.reserve_sub,
        transferred_sub=meter.transferred_sub - event.diverted_sub,
        contributions=meter.contributions + 1,
        seq=event.meter_seq,
    )


def _diverted_in(meter: MeterState, event: ContributionDiverted) -> MeterState:
    """Another meter's excess counts as transferred in, less what this meter's own ceiling sends
    on."""
    return fast_replace(
        meter,
        amount_sub=meter.amount_sub + event.amount_sub - event.overflow_sub - event.diverted_sub,
        overflow_sub=meter.overflow_sub + event.overflow_sub,
        transferred_sub=meter.transferred_sub + event.amount_sub - event.diverted_sub,
        seq=event.meter_seq,
    )


def _reversed(meter: MeterState, event: ContributionsReversed) -> MeterState:
    """A void closes the table's open round; the part of the reversal the decide side took from
    the overflow comes out of the overflow, the rest out of the meter."""
    return fast_replace(
        meter,
        open_rounds=meter.open_rounds.delete(event.table_id)
        if event.table_id in meter.open_rounds
        else meter.open_rounds,
        amount_sub=meter.amount_sub - event.primary_sub + event.overflow_sub,
        overflow_sub=meter.overflow_sub - event.overflow_sub,
        reserve_sub=meter.reserve_sub - event.reserve_sub,
        corrected_sub=meter.corrected_sub - event.primary_sub - event.reserve_sub,
        seq=event.meter_seq,
    )


def _hit(meter: MeterState, event: ProgressiveHit) -> MeterState:
    """The hit event carries the meter's after-values, so evolve copies them rather than redoing
    the decide side's arithmetic; a reset pays out every open round's contributions."""
    return fast_replace(
        meter,
        open_rounds=Map() if event.reset else meter.open_rounds,
        amount_sub=event.meter_after_sub,
        reserve_sub=event.reserve_after_sub,
        overflow_sub=event.overflow_after_sub,
        seeded_sub=meter.seeded_sub + event.reseed_sub,
        paid_sub=meter.paid_sub + event.amount_cents * SUBUNITS_PER_CENT,
        hits=meter.hits + 1,
        seq=event.meter_seq,
    )


def _corrected(meter: MeterState, event: MeterCorrected) -> MeterState:
    """A supervisor's correction moves the meter and the reserve by the stated deltas."""
    return fast_replace(
        meter,
        amount_sub=meter.amount_sub + event.amount_delta_sub,
        reserve_sub=meter.reserve_sub + event.reserve_delta_sub,
        corrected_sub=meter.corrected_sub + event.amount_delta_sub + event.reserve_delta_sub,
        seq=event.meter_seq,
    )


def _transferred_out(meter: MeterState, event: MeterTransferredOut) -> MeterState:
    """Moving the pool away retires the meter; a later void finds no open round to take back."""
    moved = event.amount_sub + event.reserve_sub + event.overflow_sub
    return fast_replace(
        meter,
        open_rounds=Map(),
        amount_sub=meter.amount_sub - event.amount_sub,
        reserve_sub=meter.reserve_sub - event.reserve_sub,
        overflow_sub=meter.overflow_sub - event.overflow_sub,
        transferred_sub=meter.transferred_sub - moved,
        retired=True,
        seq=event.meter_seq,
    )


def _transferred_in(meter: MeterState, event: MeterTransferredIn) -> MeterState:
    """The receiving side of a transfer: each part lands where it came from."""
    moved = event.amount_sub + event.reserve_sub + event.overflow_sub
    return fast_replace(
        meter,
        amount_sub=meter.amount_sub + event.amount_sub,
        reserve_sub=meter.reserve_sub + event.reserve_sub,
        overflow_sub=meter.overflow_sub + event.overflow_sub,
        transferred_sub=meter.transferred_sub + moved,
        seq=event.meter_seq,
    )


def _with_contribution(
    open_rounds: Map[str, tuple[str, int, int]], event: ContributionRecorded
) -> Map[str, tuple[str, int, int]]:
    """Add to the table's open round; a contribution from a newer round replaces the old entry
    (a table plays one round at a time, so the map holds at most one entry per table)."""
    entry = open_rounds.get(event.table_id)
    pooled = event.primary_sub - event.diverted_sub  # on the meter or in its overflow
    if entry is not None and entry[0] == event.round_id:
        total = (event.round_id, entry[1] + pooled, entry[2] + event.reserve_sub)
    else:
        total = (event.round_id, pooled, event.reserve_sub)
    return open_rounds.set(event.table_id, total)
