"""One meter's ledger for a reconciliation: its running state, and its flows while the period is
open. Pure (no I/O); `controller.reconciliation.report` drives it.

The ledger is mutable on purpose: a gaming day is millions of events, and copying frozen counters
per event would cost more than the fold itself. It never escapes this package: what leaves is the
frozen `MeterReport`, built once when the period closes.

The balance, to the sub-unit (README "Money"; rules README 6-7)::

    closing meter    = opening meter + primary contributed - carried to overflow - diverted out
                       + diverted in - primary reversed (less its overflow part) + seeds + reseeds
                       - paid + reserve and overflow released by 100% hits + meter corrections
    closing reserve  = opening reserve + reserve contributed - reserve reversed
                       - reserve released + reserve corrections
    closing overflow = opening overflow + carried - reversed from it - released by 100% hits

and each pool also less what a transfer moved out (the meter retires) plus what one moved in.

The closing values come from `controller.meter.evolve_meter`, the same fold the live system runs,
which takes a hit's ``meter_after_sub`` as recorded; the flows are summed from the events' own
fields. A record that does not add up therefore makes the two differ, and the ledger keeps the
position of every event after which the difference changed: the events behind it.
"""

from __future__ import annotations

from collections import deque

from controller.config.floor import MeterDef
from controller.meter import evolve_meter
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
from controller.reconciliation.checks import (
    check_ceiling,
    check_contribution,
    check_hit,
    check_level,
    check_retired,
    check_seed,
    check_sequence,
)
from controller.reconciliation.period import (
    AwardLine,
    Correction,
    Finding,
    Flows,
    HitRow,
    MeterReport,
    Reversal,
    Tally,
)

LAST_HITS = 25  # the regulator's "last 25 hits" per level

_Counts = list[int]  # [count, wager_cents, primary_sub, reserve_sub]


def _tally(counts: dict[str, _Counts]) -> tuple[tuple[str, Tally], ...]:
    return tuple(
        (key, Tally(count=c[0], wager_cents=c[1], primary_sub=c[2], reserve_sub=c[3]))
        for key, c in sorted(counts.items())
    )


class MeterLedger:
    """Running state of one meter, with its flows over the open period."""

    def __init__(self, meter_id: str, *, open_now: bool) -> None:
        self.state = MeterState(meter_id=meter_id)
        self.opening = self.state
        self.is_open = open_now
        self.flows = Flows()
        self.by_table: dict[str, _Counts] = {}
        self.by_wager: dict[str, _Counts] = {}
        self.awards: dict[tuple[str, str], list[int]] = {}
        self.reversals: list[Reversal] = []
        self.corrections: list[Correction] = []
        self.last_hits: deque[HitRow] = deque(maxlen=LAST_HITS)
        self.findings: list[Finding] = []
        self.behind: list[int] = []  # positions after which closing - expected changed
        self._gap = (0, 0, 0)
        self.splits = 0
        self.validated = 0
        self.paid = 0

    def open(self) -> None:
        """The period starts here: the state so far is the opening."""
        self.opening, self.is_open = self.state, True

    def flag(self, position: int, kind: str, problems: list[str]) -> None:
        """Record problems found with the event at ``position`` (only while the period is open)."""
        if self.is_open:
            self.findings += [Finding(kind, self.state.meter_id, (position,), p) for p in problems]

    def apply(self, position: int, at: str, event: MeterEvent, definition: MeterDef | None) -> None:
        """Check the event against the meter as it stands, count its flows, then apply it."""
        self.flag(position, "sequence", check_sequence(self.state, event))
        self.flag(position, "retired", check_retired(self.state, event))
        if self.is_open:
            self._count(position, at, event, definition)
        if isinstance(event, ProgressiveHit):
            self.flag(position, "hit", check_hit(self.state, event, definition))
            self.last_hits.append(HitRow.of(position, event))
        if isinstance(event, ContributionRecorded | ContributionDiverted):
            self.flag(position, "ceiling", check_ceiling(self.state, event, definition))
        self.state = evolve_meter(self.state, event)
        self.flag(position, "negative", check_level(self.state))
        gap = self.gap()
        if self.is_open and gap != self._gap:
            self.behind.append(position)
            self._gap = gap

    def _count(
        self, position: int, at: str, event: MeterEvent, definition: MeterDef | None
    ) -> None:
        f = self.flows
        match event:
            case MeterSeeded():
                self.flag(position, "seed", check_seed(event, definition))
                self.flows = fast_replace(f, seeded_sub=f.seeded_sub + event.amount_sub)
            case ContributionRecorded():
                self.flag(position, "contribution", check_contribution(event, definition))
                self._contribution(event)
            case ContributionDiverted():
                self.flows = fast_replace(
                    f,
                    diverted_in_sub=f.diverted_in_sub + event.amount_sub,
                    to_overflow_sub=f.to_overflow_sub + event.overflow_sub,
                    diverted_out_sub=f.diverted_out_sub + event.diverted_sub,
                )
            case ContributionsReversed():
                self.flows = fast_replace(
                    f,
                    reversed_count=f.reversed_count + event.count,
                    reversed_primary_sub=f.reversed_primary_sub + event.primary_sub,
                    reversed_reserve_sub=f.reversed_reserve_sub + event.reserve_sub,
                    reversed_overflow_sub=f.reversed_overflow_sub + event.overflow_sub,
                )
                self.reversals.append(Reversal.of(position, event))
            case ProgressiveHit():
                self._hit(event)
            case MeterTransferredOut() | MeterTransferredIn():
                self._moved(event)
            case MeterCorrected():
                self.flows = fast_replace(
                    f,
                    corrected_amount_sub=f.corrected_amount_sub + event.amount_delta_sub,
                    corrected_reserve_sub=f.corrected_reserve_sub + event.reserve_delta_sub,
                )
                self.corrections.append(Correction.of(position, at, event))

    def _hit(self, event: ProgressiveHit) -> None:
        """A hit pays from the meter; a reset reseeds it and releases the reserve and the
        overflow onto it. A dealer-hand jackpot shared by several seats counts as one split."""
        f = self.flows
        self.flows = fast_replace(
            f,
            reseeded_sub=f.reseeded_sub + event.reseed_sub,
            paid_sub=f.paid_sub + event.amount_cents * SUBUNITS_PER_CENT,
            released_sub=f.released_sub + event.reserve_before_sub - event.reserve_after_sub,
            overflow_released_sub=f.overflow_released_sub
            + event.overflow_before_sub
            - event.overflow_after_sub,
        )
        self.splits += event.on == "dealer" and len(event.winners) > 1
        self.award("progressive", event.hand, event.amount_cents)

    def _moved(self, event: MeterTransferredOut | MeterTransferredIn) -> None:
        """A transfer out (the meter retires) or in, by pool, to the sub-unit."""
        parts = (event.amount_sub, event.reserve_sub, event.overflow_sub)
        f = self.flows
        if isinstance(event, MeterTransferredOut):
            total = tuple(a + b for a, b in zip(f.moved_out, parts, strict=True))
            self.flows = fast_replace(f, moved_out=total)
        else:
            total = tuple(a + b for a, b in zip(f.moved_in, parts, strict=True))
            self.flows = fast_replace(f, moved_in=total)

    def _contribution(self, event: ContributionRecorded) -> None:
        f = self.flows
        self.flows = fast_replace(
            f,
            contributed_count=f.contributed_count + 1,
            contributed_primary_sub=f.contributed_primary_sub + event.primary_sub,
            contributed_reserve_sub=f.contributed_reserve_sub + event.reserve_sub,
            to_overflow_sub=f.to_overflow_sub + event.overflow_sub,
            diverted_out_sub=f.diverted_out_sub + event.diverted_sub,
        )
        wager = event.wager if event.on == "own" else f"{event.wager} on {event.on}"
        for key, table in ((event.table_id, self.by_table), (wager, self.by_wager)):
            counts = table.setdefault(key, [0, 0, 0, 0])
            counts[0] += 1
            counts[1] += event.wager_cents
            counts[2] += event.primary_sub
            counts[3] += event.reserve_sub

    def award(self, kind: str, hand: str, cents: int) -> None:
        """An award in the period: progressive (from the meter), fixed or envy (from the table)."""
        if self.is_open:
            line = self.awards.setdefault((kind, hand), [0, 0])
            line[0] += 1
            line[1] += cents

    def gap(self) -> tuple[int, int, int]:
        """(meter, reserve, overflow) as folded minus as opening plus flows; 0s when it adds up."""
        o, s = self.opening, self.state
        amount, reserve, overflow = self.flows.expected(o.amount_sub, o.reserve_sub, o.overflow_sub)
        return s.amount_sub - amount, s.reserve_sub - reserve, s.overflow_sub - overflow

    def report(self, definition: MeterDef | None, outstanding: tuple[str, ...]) -> MeterReport:
        """The frozen report of the period, as it stands now (called when the period closes)."""
        ceiling = None if definition is None else definition.ceiling_cents
        return MeterReport(
            meter_id=self.state.meter_id,
            opening=self.opening,
            closing=self.state,
            flows=self.flows,
            by_table=_tally(self.by_table),
            by_wager=_tally(self.by_wager),
            awards=tuple(
                AwardLine(kind=k, hand=h, count=v[0], cents=v[1])
                for (k, h), v in sorted(self.awards.items())
            ),
            reversals=tuple(self.reversals),
            corrections=tuple(self.corrections),
            splits=self.splits,
            hits_validated=self.validated,
            hits_paid=self.paid,
            outstanding_hits=outstanding,
            ceiling_cents=ceiling,
            overflow_sub=self.state.overflow_sub,
            above_ceiling_sub=self.flows.to_overflow_sub + self.flows.diverted_out_sub,
            last_hits=tuple(reversed(self.last_hits)),
            behind=tuple(self.behind),
        )
