"""Checks of single meter events against the meter as the log has built it so far. Pure.

Each check returns the problems it found as messages (empty when the event is sound), so the
reconciliation can flag the event by its log position. They re-derive what the core decided
(`controller.meter`) from the event's own fields and the floor configuration, so a record that
was altered, lost or replayed twice shows up here even though folding it never fails.
"""

from __future__ import annotations

from fractions import Fraction

from controller.ceiling import split_at_ceiling
from controller.config.floor import MeterDef
from controller.model.events import (
    AwardShare,
    ContributionDiverted,
    ContributionRecorded,
    ContributionsReversed,
    MeterEvent,
    MeterSeeded,
    MeterTransferredOut,
    ProgressiveHit,
)
from controller.model.money import SUBUNITS_PER_CENT, format_subunits_exact, percent_of_meter_cents
from controller.model.state import MeterState

#: What a reversal must take back: (count, primary_sub, reserve_sub) contributed in that round.
Contributed = tuple[int, int, int]


class RoundContributions:
    """What each unsettled round gave each meter, so a void can be checked against it
    (`check_reversal`): kept from the contributions until the round settles or is voided."""

    def __init__(self) -> None:
        self._rounds: dict[tuple[str, str], dict[str, Contributed]] = {}

    def add(self, event: ContributionRecorded) -> None:
        """Count one more contribution of the round to the meter."""
        per_meter = self._rounds.setdefault((event.table_id, event.round_id), {})
        count, primary, reserve = per_meter.get(event.meter_id, (0, 0, 0))
        per_meter[event.meter_id] = (
            count + 1,
            primary + event.primary_sub,
            reserve + event.reserve_sub,
        )

    def take(self, event: ContributionsReversed) -> Contributed | None:
        """What the voided round gave the meter (None if nothing open), forgotten once taken:
        a second void of the same round finds nothing."""
        return self._rounds.get((event.table_id, event.round_id), {}).pop(event.meter_id, None)

    def settled(self, table_id: str, round_id: str) -> None:
        """A settled round can no longer be voided."""
        self._rounds.pop((table_id, round_id), None)


def check_sequence(meter: MeterState, event: MeterEvent) -> list[str]:
    """Every meter event is the meter's next operation: a gap is a lost event, a repeat a replay."""
    if event.meter_seq == meter.seq + 1:
        return []
    return [f"meter_seq {event.meter_seq} follows {meter.seq}: expected {meter.seq + 1}"]


def check_retired(meter: MeterState, event: MeterEvent) -> list[str]:
    """A retired meter accepts nothing more; a transfer out moves its whole pool (44 Pa.B. 599)."""
    if meter.retired:
        return [f"{event.TYPE} on meter {meter.meter_id}, which was retired by a transfer"]
    if not isinstance(event, MeterTransferredOut):
        return []
    moved = (event.amount_sub, event.reserve_sub, event.overflow_sub)
    held = (meter.amount_sub, meter.reserve_sub, meter.overflow_sub)
    if moved == held:
        return []
    return [
        "transfer moves " + " / ".join(format_subunits_exact(m) for m in moved) + " but the "
        "meter held " + " / ".join(format_subunits_exact(h) for h in held) + " (meter / reserve / "
        "overflow)"
    ]


def check_level(meter: MeterState) -> list[str]:
    """A meter and its reserve never go below zero (only awards and corrections take money)."""
    if meter.amount_sub >= 0 and meter.reserve_sub >= 0:
        return []
    amount, reserve = (
        format_subunits_exact(meter.amount_sub),
        format_subunits_exact(meter.reserve_sub),
    )
    return [f"meter {amount} / reserve {reserve} below zero"]


def check_seed(event: MeterSeeded, definition: MeterDef | None) -> list[str]:
    """The opening seed is the configured "for 1" times the wager unit (649a.12(e)(3) etc.)."""
    if definition is None or event.amount_sub == definition.seed_subunits:
        return []
    return [
        f"seeded {format_subunits_exact(event.amount_sub)}, configured seed is "
        f"{format_subunits_exact(definition.seed_subunits)}"
    ]


def check_contribution(event: ContributionRecorded, definition: MeterDef | None) -> list[str]:
    """Primary and reserve are the wager times the configured rates, exactly (money.py)."""
    if definition is None:
        return []
    problems = []
    for part, got, ppm in (
        ("primary", event.primary_sub, definition.progressive.primary_ppm),
        ("reserve", event.reserve_sub, definition.progressive.reserve_ppm),
    ):
        if got != event.wager_cents * ppm:
            problems.append(
                f"{part} {format_subunits_exact(got)} is not {ppm} ppm of a "
                f"{event.wager_cents}-cent wager ({format_subunits_exact(event.wager_cents * ppm)})"
            )
    return problems


def check_reversal(event: ContributionsReversed, contributed: Contributed | None) -> list[str]:
    """A void asks back exactly what its round contributed to this meter, once, and takes back
    no more than that (less when a 100% hit has since paid it out, or a correction removed it)."""
    asked = (event.count, event.requested_primary_sub, event.requested_reserve_sub)
    problems = []
    if event.primary_sub > asked[1] or event.reserve_sub > asked[2]:
        problems.append("takes back more than the round contributed")
    if contributed == asked:
        return problems
    if contributed is None:
        return [
            *problems,
            f"reverses round {event.round_id} at {event.table_id}, which has no open "
            "contributions to this meter (never contributed, settled, or reversed already)",
        ]
    return [
        *problems,
        f"reverses {asked[0]} contributions ({format_subunits_exact(asked[1])} + "
        f"{format_subunits_exact(asked[2])} reserve); the round contributed {contributed[0]} "
        f"({format_subunits_exact(contributed[1])} + {format_subunits_exact(contributed[2])})",
    ]


def share_of(hit: ProgressiveHit) -> Fraction | None:
    """The hit's share of the meter ("100%", "10%", "25/2%"), or None if it is not one."""
    if not hit.share.endswith("%"):
        return None
    try:
        return Fraction(hit.share[:-1]) / 100
    except (ValueError, ZeroDivisionError):
        return None


def check_hit(meter: MeterState, hit: ProgressiveHit, definition: MeterDef | None) -> list[str]:
    """A progressive hit is priced from the meter as it stood at the player's turn (649a.12(e)(4)),
    pays its share rounded down to the cent, splits exactly (649a.12(i)(2)) and resets to reseed
    plus reserve only at 100% (rules README 6-7)."""
    problems = _priced(meter, hit)
    share = share_of(hit)
    if hit.share == "mystery":  # pays its trigger (`controller.mystery.audit`), resets as 100%
        share = Fraction(1)
        if hit.amount_cents * SUBUNITS_PER_CENT > hit.meter_before_sub:
            problems.append(f"paid {hit.amount_cents} cents, more than the meter held")
    elif share is None:
        problems.append(f"share {hit.share!r} is not a percentage of the meter")
    elif percent_of_meter_cents(hit.meter_before_sub, share) != hit.amount_cents:
        due = percent_of_meter_cents(hit.meter_before_sub, share)
        problems.append(f"paid {hit.amount_cents} cents; {hit.share} of the meter is {due}")
    if _total(hit.winners) != hit.amount_cents:
        problems.append(f"winners' parts add up to {_total(hit.winners)}, not {hit.amount_cents}")
    released = hit.reserve_before_sub - hit.reserve_after_sub
    released += hit.overflow_before_sub - hit.overflow_after_sub
    after = hit.meter_before_sub - hit.amount_cents * SUBUNITS_PER_CENT + hit.reseed_sub + released
    if after != hit.meter_after_sub:
        problems.append(
            f"meter after {format_subunits_exact(hit.meter_after_sub)} does not follow from "
            f"before - paid + reseed + reserve and overflow released "
            f"({format_subunits_exact(after)})"
        )
    problems += _reset(hit, share, definition)
    return problems


def check_ceiling(
    meter: MeterState,
    event: ContributionRecorded | ContributionDiverted,
    definition: MeterDef | None,
) -> list[str]:
    """The meter stops at its ceiling and not before; the rest is carried or diverted as configured
    (NY 5320.8, NJ 13:69E-1.39A). Without a configuration there is nothing to check against."""
    if definition is None:
        return []
    arriving = event.primary_sub if isinstance(event, ContributionRecorded) else event.amount_sub
    kept, overflow, diverted = split_at_ceiling(meter, definition, arriving)
    if (overflow, diverted) == (event.overflow_sub, event.diverted_sub) and (
        not diverted or event.divert_to == definition.divert_to
    ):
        return []
    return [
        f"of {format_subunits_exact(arriving)} the meter kept "
        f"{format_subunits_exact(arriving - event.overflow_sub - event.diverted_sub)}, carried "
        f"{format_subunits_exact(event.overflow_sub)} and diverted "
        f"{format_subunits_exact(event.diverted_sub)} to {event.divert_to or '-'}; its ceiling "
        f"says {format_subunits_exact(kept)}, {format_subunits_exact(overflow)} and "
        f"{format_subunits_exact(diverted)} to {definition.divert_to or '-'}"
    ]


def _priced(meter: MeterState, hit: ProgressiveHit) -> list[str]:
    problems = []
    if hit.meter_before_sub != meter.amount_sub:
        problems.append(
            f"priced from a meter of {format_subunits_exact(hit.meter_before_sub)}, but the meter "
            f"stood at {format_subunits_exact(meter.amount_sub)}"
        )
    if hit.reserve_before_sub != meter.reserve_sub:
        problems.append(
            f"reserve before {format_subunits_exact(hit.reserve_before_sub)}, but the reserve "
            f"stood at {format_subunits_exact(meter.reserve_sub)}"
        )
    return problems


def _reset(hit: ProgressiveHit, share: Fraction | None, definition: MeterDef | None) -> list[str]:
    """Only a 100% award resets: reseed from the configuration, the whole reserve moved over."""
    full = share == 1
    reseed = 0
    if full:
        reseed = definition.reseed_subunits if definition else hit.reseed_sub
    problems = []
    if hit.reseed_sub != reseed:
        problems.append(
            f"reseed {format_subunits_exact(hit.reseed_sub)}, expected "
            f"{format_subunits_exact(reseed)}"
        )
    if not full and hit.overflow_after_sub != hit.overflow_before_sub:
        problems.append("a partial award must leave the overflow alone")
    if hit.reserve_after_sub != (0 if full else hit.reserve_before_sub):
        problems.append(
            f"reserve after {format_subunits_exact(hit.reserve_after_sub)}: a "
            f"{'100%' if full else 'partial'} award must "
            f"{'move the whole reserve to the meter' if full else 'leave the reserve alone'}"
        )
    return problems


def _total(winners: tuple[AwardShare, ...]) -> int:
    return sum(w.amount_cents for w in winners)
