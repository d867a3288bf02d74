"""The progressive liability report for accounting (N.J.A.C. 13:69D-1.52): per gaming day and level
(meter), what the pool owed at the opening, what flowed in and out, and what it owes at the close.
Pure: built from a `Report` of one gaming day (`controller.reconciliation.report`).

The liability of a level is everything its pool holds: the meter, its reserve and its overflow.
Reserve released onto the meter and overflow released at a 100% hit move money inside the pool and
do not change it. The check, to the sub-unit::

    opening + contributions (primary + reserve) + seeds and reseeds - awards paid from the meter
        + transfers in - transfers out - voids reversed + corrections = closing

which is the issue's "contributions equal the change in meter + reserve + overflow plus what was
paid and moved", read the other way round. Fixed and Envy awards are paid from the table's
inventory, not from the pool, and are not in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from controller.model.money import format_subunits_exact
from controller.model.state import MeterState
from controller.reconciliation.period import MeterReport, Report

LIABILITY_HEADER = (
    "gaming_day",
    "meter_id",
    "opening_meter",
    "opening_reserve",
    "opening_overflow",
    "opening_liability",
    "contributions_primary",
    "contributions_reserve",
    "carried_to_overflow",
    "seeds",
    "awards_paid",
    "transfers_in",
    "transfers_out",
    "voids",
    "corrections",
    "closing_meter",
    "closing_reserve",
    "closing_overflow",
    "closing_liability",
    "difference",
    "balanced",
)


def _pool(state: MeterState) -> int:
    return state.amount_sub + state.reserve_sub + state.overflow_sub


@dataclass(frozen=True, slots=True, kw_only=True)
class LiabilityLine:
    """One level on one gaming day, in sub-units."""

    gaming_day: str
    meter_id: str
    opening: MeterState
    closing: MeterState
    contributions_primary_sub: int
    contributions_reserve_sub: int
    carried_to_overflow_sub: int
    """Of the primary (and of transfers in), the part carried above the ceiling: already counted
    in the contributions, shown because accounting books the overflow apart."""
    seeds_sub: int
    awards_paid_sub: int
    transfers_in_sub: int
    transfers_out_sub: int
    voids_sub: int
    corrections_sub: int

    @property
    def expected_closing_sub(self) -> int:
        """The closing liability the opening and the flows say."""
        return (
            _pool(self.opening)
            + self.contributions_primary_sub
            + self.contributions_reserve_sub
            + self.seeds_sub
            - self.awards_paid_sub
            + self.transfers_in_sub
            - self.transfers_out_sub
            - self.voids_sub
            + self.corrections_sub
        )

    @property
    def difference_sub(self) -> int:
        """Closing as folded minus as expected; 0 when the level balances."""
        return _pool(self.closing) - self.expected_closing_sub

    @property
    def balanced(self) -> bool:
        """Whether the level's liability adds up to the sub-unit."""
        return self.difference_sub == 0


def liability_line(gaming_day: str, meter: MeterReport) -> LiabilityLine:
    """One level's line from its reconciliation over the gaming day."""
    f = meter.flows
    return LiabilityLine(
        gaming_day=gaming_day,
        meter_id=meter.meter_id,
        opening=meter.opening,
        closing=meter.closing,
        contributions_primary_sub=f.contributed_primary_sub,
        contributions_reserve_sub=f.contributed_reserve_sub,
        carried_to_overflow_sub=f.to_overflow_sub,
        seeds_sub=f.seeded_sub + f.reseeded_sub,
        awards_paid_sub=f.paid_sub,
        transfers_in_sub=f.diverted_in_sub + sum(f.moved_in),
        transfers_out_sub=f.diverted_out_sub + sum(f.moved_out),
        voids_sub=f.reversed_primary_sub + f.reversed_reserve_sub,
        corrections_sub=f.corrected_amount_sub + f.corrected_reserve_sub,
    )


def liability_lines(gaming_day: str, report: Report) -> tuple[LiabilityLine, ...]:
    """Every level's line for one gaming day's report."""
    return tuple(liability_line(gaming_day, meter) for meter in report.meters)


def _amounts(line: LiabilityLine) -> tuple[int, ...]:
    o, c = line.opening, line.closing
    return (
        o.amount_sub,
        o.reserve_sub,
        o.overflow_sub,
        _pool(o),
        line.contributions_primary_sub,
        line.contributions_reserve_sub,
        line.carried_to_overflow_sub,
        line.seeds_sub,
        line.awards_paid_sub,
        line.transfers_in_sub,
        line.transfers_out_sub,
        line.voids_sub,
        line.corrections_sub,
        c.amount_sub,
        c.reserve_sub,
        c.overflow_sub,
        _pool(c),
        line.difference_sub,
    )


def liability_rows(lines: Iterable[LiabilityLine]) -> Iterator[tuple[str, ...]]:
    """The lines as CSV rows under `LIABILITY_HEADER`, amounts exact to the sub-unit."""
    for line in lines:
        amounts = tuple(format_subunits_exact(a) for a in _amounts(line))
        yield (line.gaming_day, line.meter_id, *amounts, "yes" if line.balanced else "NO")


def liability_document(lines: Iterable[LiabilityLine]) -> dict[str, object]:
    """The lines as JSON-ready data: one object per line keyed as the CSV header."""
    rows: list[dict[str, object]] = []
    for row in liability_rows(lines):
        entry: dict[str, object] = dict(zip(LIABILITY_HEADER, row, strict=True))
        entry["balanced"] = row[-1] == "yes"
        rows.append(entry)
    return {"lines": rows, "balanced": all(row["balanced"] for row in rows)}
