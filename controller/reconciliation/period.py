"""A reconciliation's period and what it reports: frozen data, meter amounts in sub-units, awards
in cents.

Built by `controller.reconciliation.report`; printed by `controller.reconciliation.view`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone

from controller.model.events import (
    AwardShare,
    ContributionsReversed,
    MeterCorrected,
    ProgressiveHit,
)
from controller.model.state import MeterState


@dataclass(frozen=True, slots=True, kw_only=True)
class PositionWindow:
    """The records with ``after`` < position <= ``to`` (None: to the end of the log)."""

    after: int = 0
    to: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeWindow:
    """[start, end) by ``occurred_at``, cut at log positions (`reconciliation.report`)."""

    start: datetime
    end: datetime


Period = PositionWindow | TimeWindow


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A record that did not decode to an event: flagged, and skipped."""

    reason: str


def gaming_day(day: date, starts: time, utc_offset: timedelta) -> TimeWindow:
    """The 24 hours from ``starts`` local time on ``day``, local time being UTC + ``utc_offset``."""
    start = datetime.combine(day, starts, tzinfo=timezone(utc_offset)).astimezone(UTC)
    return TimeWindow(start=start, end=start + timedelta(days=1))


@dataclass(frozen=True, slots=True)
class Finding:
    """Something that does not add up: what, which meter ("" for the log), and where in the log."""

    kind: str
    meter_id: str
    positions: tuple[int, ...]
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Tally:
    """Contributions of one table or one wager type: how many, the wagers, and what they funded."""

    count: int
    wager_cents: int
    primary_sub: int
    reserve_sub: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AwardLine:
    """Awards of one kind ("progressive", "fixed", "envy") for one level (the hand)."""

    kind: str
    hand: str
    count: int
    cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Reversal:
    """A voided round's contributions taken back, with the reason the table gave."""

    position: int
    occurred_at: str
    table_id: str
    round_id: str
    count: int
    primary_sub: int
    reserve_sub: int
    reason: str

    @classmethod
    def of(cls, position: int, event: ContributionsReversed) -> Reversal:
        """The reversal an event records."""
        return cls(
            position=position,
            occurred_at=event.occurred_at,
            table_id=event.table_id,
            round_id=event.round_id,
            count=event.count,
            primary_sub=event.primary_sub,
            reserve_sub=event.reserve_sub,
            reason=event.reason,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Correction:
    """An authorised correction: who, why, when, and by how much."""

    position: int
    occurred_at: str
    by: str
    reason: str
    amount_delta_sub: int
    reserve_delta_sub: int

    @classmethod
    def of(cls, position: int, at: str, event: MeterCorrected) -> Correction:
        """The correction an event records."""
        return cls(
            position=position,
            occurred_at=at,
            by=event.by,
            reason=event.reason,
            amount_delta_sub=event.amount_delta_sub,
            reserve_delta_sub=event.reserve_delta_sub,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class HitRow:
    """One progressive hit as the regulator's "last 25 hits" lists it."""

    position: int
    occurred_at: str
    table_id: str
    round_id: str
    wager: str
    on: str
    hand: str
    cards: tuple[str, ...]
    share: str
    amount_cents: int
    winners: tuple[AwardShare, ...]
    meter_before_sub: int
    meter_after_sub: int

    @classmethod
    def of(cls, position: int, event: ProgressiveHit) -> HitRow:
        """The row for a hit."""
        return cls(
            position=position,
            occurred_at=event.occurred_at,
            table_id=event.table_id,
            round_id=event.round_id,
            wager=event.wager,
            on=event.on,
            hand=event.hand,
            cards=event.cards,
            share=event.share,
            amount_cents=event.amount_cents,
            winners=event.winners,
            meter_before_sub=event.meter_before_sub,
            meter_after_sub=event.meter_after_sub,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Flows:
    """A meter's money movements over the period, in sub-units (counts where named)."""

    seeded_sub: int = 0
    contributed_count: int = 0
    contributed_primary_sub: int = 0
    contributed_reserve_sub: int = 0
    reversed_count: int = 0
    reversed_primary_sub: int = 0
    reversed_reserve_sub: int = 0
    reseeded_sub: int = 0
    paid_sub: int = 0
    released_sub: int = 0  # reserve moved onto the meter by 100% hits
    corrected_amount_sub: int = 0
    corrected_reserve_sub: int = 0
    to_overflow_sub: int = 0  # primary (own or diverted in) carried above the ceiling
    diverted_out_sub: int = 0  # sent on to another meter above the ceiling
    diverted_in_sub: int = 0  # arrived from another meter's excess
    reversed_overflow_sub: int = 0  # of reversed_primary_sub, the part taken from the overflow
    overflow_released_sub: int = 0  # overflow moved onto the meter by 100% hits
    moved_out: tuple[int, int, int] = (0, 0, 0)  # (meter, reserve, overflow) transferred away
    moved_in: tuple[int, int, int] = (0, 0, 0)  # (meter, reserve, overflow) transferred here

    def expected(
        self, opening_amount_sub: int, opening_reserve_sub: int, opening_overflow_sub: int = 0
    ) -> tuple[int, int, int]:
        """(meter, reserve, overflow) that the opening and these flows say it must close at."""
        amount = (
            opening_amount_sub
            + self.contributed_primary_sub
            - self.to_overflow_sub
            - self.diverted_out_sub
            + self.diverted_in_sub
            - self.reversed_primary_sub
            + self.reversed_overflow_sub
            + self.seeded_sub
            + self.reseeded_sub
            - self.paid_sub
            + self.released_sub
            + self.overflow_released_sub
            + self.corrected_amount_sub
            - self.moved_out[0]
            + self.moved_in[0]
        )
        reserve = (
            opening_reserve_sub
            + self.contributed_reserve_sub
            - self.reversed_reserve_sub
            - self.released_sub
            + self.corrected_reserve_sub
            - self.moved_out[1]
            + self.moved_in[1]
        )
        overflow = (
            opening_overflow_sub
            + self.to_overflow_sub
            - self.reversed_overflow_sub
            - self.overflow_released_sub
            - self.moved_out[2]
            + self.moved_in[2]
        )
        return amount, reserve, overflow


@dataclass(frozen=True, slots=True, kw_only=True)
class MeterReport:
    """One meter over the period. ``closing`` is the meter as folded, with its lifetime totals
    (contributions, hits, total won) that the regulator's per-level meters read."""

    meter_id: str
    opening: MeterState
    closing: MeterState
    flows: Flows
    by_table: tuple[tuple[str, Tally], ...]
    by_wager: tuple[tuple[str, Tally], ...]
    awards: tuple[AwardLine, ...]
    reversals: tuple[Reversal, ...]
    corrections: tuple[Correction, ...]
    splits: int
    hits_validated: int
    hits_paid: int
    outstanding_hits: tuple[str, ...]
    ceiling_cents: int | None
    overflow_sub: int  # carried at the closing
    above_ceiling_sub: int  # contributed above the ceiling in the period (carried or diverted)
    last_hits: tuple[HitRow, ...]  # newest first
    behind: tuple[int, ...]

    @property
    def expected(self) -> tuple[int, int, int]:
        """(meter, reserve, overflow) the opening plus the flows say."""
        o = self.opening
        return self.flows.expected(o.amount_sub, o.reserve_sub, o.overflow_sub)

    @property
    def difference(self) -> tuple[int, int, int]:
        """(meter, reserve, overflow) as closed minus as expected; all 0 when balanced."""
        amount, reserve, overflow = self.expected
        c = self.closing
        return c.amount_sub - amount, c.reserve_sub - reserve, c.overflow_sub - overflow

    @property
    def balanced(self) -> bool:
        """Whether the meter, its reserve and its overflow add up to the sub-unit."""
        return self.difference == (0, 0, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """A reconciliation. The opening is the state after ``opening_position``; the closing the
    state after ``closing_position``; the period is the records between (``records`` of them).

    ``head`` is every meter after the last record read (``head_position``), for comparing with a
    live read model, which reflects the whole log.
    """

    period: str
    opening_position: int
    closing_position: int
    records: int
    head_position: int
    meters: tuple[MeterReport, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]
    head: tuple[MeterState, ...]

    @property
    def balanced(self) -> bool:
        """True when every meter adds up and no event was flagged."""
        return not self.findings and all(m.balanced for m in self.meters)
