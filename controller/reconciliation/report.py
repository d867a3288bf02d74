"""Reconciliation of every meter over a period: a fold over the log. Pure: no I/O, no clock.

``reconcile(records, period)`` takes the log's records as ``(position, event)`` in log order, from
the first, and returns a `Report`: per meter the opening, the flows (contributions by table and by
wager type, voids, awards by level and kind, reseeds, corrections with who and why), the closing,
and whether they add up to the sub-unit (`controller.reconciliation.ledger`), with every event that
does not add up flagged by position (`controller.reconciliation.checks`), and what the report says
about the period as a whole (`controller.reconciliation.summary`).

How a period is cut. The log's position order is the truth, and a record's time is the
controller's receive time (``received_at``, issue 15); only a record logged before it was kept is
placed by its ``occurred_at``, which comes from a table's own clock (counted in the notes). A
period is always a run of consecutive positions, and the opening is the state after the position
before it:

- `PositionWindow(after=N, to=M)`: the records with N < position <= M (``to=None``: to the end).
- `TimeWindow(start, end)` (``end`` exclusive): the period begins at the first record stamped at or
  after ``start`` and ends before the first later record stamped at or after ``end``. A record
  logged inside the period but stamped before ``start``, or logged after it but stamped before
  ``end`` (a slow table clock, a late batch), stays where the log put it and is counted in the
  report's notes, so an odd cut is visible rather than silently moved; records left out (logged
  after the period, timed inside it) are also a ``left_out`` finding: the report does not
  balance.
- `gaming_day(day, starts, utc_offset)`: the `TimeWindow` of 24 hours from ``starts`` (e.g. 06:00)
  local time on ``day``, local time given as a fixed offset from UTC (e.g. -05:00). On a day the
  clocks change, give the offset in force at the start and expect a 23- or 25-hour day to be cut at
  24 hours; use a time window for such a day.

Meters are checked against the configuration in force in the log (`ConfigActivated`), or the one
passed in. "Last 25 hits" and the lifetime totals are as of the closing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from controller.config.floor import FloorConfig, MeterDef, logged_config
from controller.model.errors import ConfigError
from controller.model.events import (
    ConfigActivated,
    ContributionDiverted,
    ContributionRecorded,
    ContributionsReversed,
    EnvyAwarded,
    Event,
    FixedAwarded,
    HitPaid,
    HitValidated,
    MeterCorrected,
    MeterSeeded,
    MeterTransferredIn,
    MeterTransferredOut,
    ProgressiveHit,
)
from controller.model.instants import aware_instant
from controller.model.table_events import RoundSettled
from controller.reconciliation.checks import RoundContributions, check_reversal
from controller.reconciliation.ledger import MeterLedger
from controller.reconciliation.period import (
    Finding,
    MeterReport,
    Period,
    PositionWindow,
    Report,
    TimeWindow,
    Unreadable,
    gaming_day,
)
from controller.reconciliation.summary import (
    balance_findings,
    describe,
    left_out_finding,
    time_notes,
)

__all__ = [
    "Period",
    "PositionWindow",
    "Report",
    "TimeWindow",
    "Unreadable",
    "gaming_day",
    "reconcile",
]


Record = tuple[int, Event | Unreadable] | tuple[int, Event | Unreadable, str]


def reconcile(
    records: Iterable[Record],
    period: Period,
    config: FloorConfig | None = None,
) -> Report:
    """Fold the log's records (from the first, in order) into the period's report. A record is
    ``(position, event)`` or ``(position, event, received_at)``: the controller's receive time
    places it in a time window; without one, its ``occurred_at`` does.

    ``config`` overrides the configuration found in the log (for ceilings set only on paper, or a
    log whose configuration text cannot be read).
    """
    fold = _Fold(period, config)
    for record in records:
        fold.add(record[0], record[1], record[2] if len(record) > 2 else "")
    return fold.finish()


Phase = Literal["before", "in", "after"]


class _Fold:
    """The fold's working state (mutable and private; see `controller.reconciliation.ledger`)."""

    def __init__(self, period: Period, config: FloorConfig | None) -> None:
        self.period = period
        self.fixed_config = config is not None
        self.config = config
        self.ledgers: dict[str, MeterLedger] = {}
        self.phase: Phase = "before"
        self.opening_position = self.closing_position = self.head_position = 0
        self.records = self.early = self.late = self.unstamped = 0
        self.left_out: list[int] = []  # positions logged after the period but timed inside it
        self.findings: list[Finding] = []
        self.notes: list[str] = []
        self.reports: tuple[MeterReport, ...] = ()
        self.hits: dict[str, str] = {}  # hit_id -> meter_id, until paid
        self.rounds = RoundContributions()

    def add(self, position: int, item: Event | Unreadable, received_at: str = "") -> None:
        """One record, in log order, with the controller's receive time if the log kept it."""
        self._advance(position, item, received_at)
        self.head_position = position
        if self.phase == "in":
            self.records += 1
        if isinstance(item, Unreadable):
            if self.phase == "in":
                self.findings.append(Finding("unreadable", "", (position,), item.reason))
            return
        self._event(position, item)

    def _advance(self, position: int, item: Event | Unreadable, received_at: str) -> None:
        """Open or close the period at this record, by position or by its time stamp."""
        if isinstance(self.period, PositionWindow):
            to = self.period.to
            if self.phase == "before" and position > self.period.after:
                self._open(position)
            if self.phase == "in" and to is not None and position > to:
                self._close()
            return
        at = aware_instant(received_at) if received_at else None
        if at is None and not isinstance(item, Unreadable):
            at = aware_instant(item.occurred_at)
        if at is None:
            self.unstamped += self.phase == "in"
            return
        if self.phase == "before" and at >= self.period.start:
            self._open(position)
        elif self.phase == "in" and at < self.period.start:
            self.early += 1
        if self.phase == "in" and at >= self.period.end:
            self._close()
        elif self.phase == "after" and at < self.period.end:
            self.late += 1
            self.left_out.append(position)

    def _open(self, position: int) -> None:
        self.phase = "in"
        self.opening_position = self.closing_position = position - 1
        for ledger in self.ledgers.values():
            ledger.open()

    def _close(self) -> None:
        self.phase = "after"
        self.closing_position = self.head_position
        outstanding: dict[str, list[str]] = {}
        for hit_id, meter_id in sorted(self.hits.items()):
            outstanding.setdefault(meter_id, []).append(hit_id)
        self.reports = tuple(
            ledger.report(self._definition(mid), tuple(outstanding.get(mid, ())))
            for mid, ledger in sorted(self.ledgers.items(), key=lambda kv: self._order(kv[0]))
        )
        for ledger in self.ledgers.values():
            self.findings += ledger.findings
            ledger.is_open = False

    def _order(self, meter_id: str) -> tuple[int, str]:
        """The configuration's order, then any other meter by id."""
        order = list(self.config.meters) if self.config else []
        return (order.index(meter_id), "") if meter_id in order else (len(order), meter_id)

    def _definition(self, meter_id: str) -> MeterDef | None:
        return None if self.config is None else self.config.meters.get(meter_id)

    def _ledger(self, meter_id: str) -> MeterLedger:
        ledger = self.ledgers.get(meter_id)
        if ledger is None:
            ledger = self.ledgers[meter_id] = MeterLedger(meter_id, open_now=self.phase == "in")
        return ledger

    def _event(self, position: int, event: Event) -> None:
        match event:
            case (
                MeterSeeded()
                | ContributionRecorded()
                | ContributionDiverted()
                | ProgressiveHit()
                | MeterCorrected()
                | MeterTransferredOut()
                | MeterTransferredIn()
            ):
                self._meter_event(position, event)
            case ContributionsReversed():
                contributed = self.rounds.take(event)
                self._ledger(event.meter_id).flag(
                    position, "reversal", check_reversal(event, contributed)
                )
                self._ledger(event.meter_id).apply(
                    position, event.occurred_at, event, self._definition(event.meter_id)
                )
            case FixedAwarded() | EnvyAwarded():
                kind = "fixed" if isinstance(event, FixedAwarded) else "envy"
                self._ledger(event.meter_id).award(kind, event.hand, event.amount_cents)
            case HitValidated() | HitPaid():
                self._hit_life(position, event)
            case RoundSettled():
                self.rounds.settled(event.table_id, event.round_id)
            case ConfigActivated():
                self._config(position, event)
            case _:
                return

    def _meter_event(
        self,
        position: int,
        event: MeterSeeded
        | ContributionRecorded
        | ContributionDiverted
        | ProgressiveHit
        | MeterCorrected
        | MeterTransferredOut
        | MeterTransferredIn,
    ) -> None:
        if isinstance(event, ContributionRecorded):
            self.rounds.add(event)  # so a void of the round can be checked against it
        elif isinstance(event, ProgressiveHit):
            self.hits[event.hit_id] = event.meter_id
        self._ledger(event.meter_id).apply(
            position, event.occurred_at, event, self._definition(event.meter_id)
        )

    def _hit_life(self, position: int, event: HitValidated | HitPaid) -> None:
        """Validations and payments in the period, by meter (649a.11(c)(5)(iii)-(iv))."""
        meter_id = self.hits.get(event.hit_id)
        if meter_id is None:
            if self.phase == "in":
                reason = f"{event.TYPE} for hit {event.hit_id!r}, which is not awaiting payment"
                self.findings.append(Finding("hit_life", "", (position,), reason))
            return
        ledger = self._ledger(meter_id)
        if isinstance(event, HitPaid):
            del self.hits[event.hit_id]
            ledger.paid += ledger.is_open
        else:
            ledger.validated += ledger.is_open

    def _config(self, position: int, event: ConfigActivated) -> None:
        if self.fixed_config:
            return
        try:
            self.config = logged_config(event.digest, event.text, event.source)
        except ConfigError as exc:
            self.notes.append(f"position {position}: configuration not readable, not used: {exc}")

    def finish(self) -> Report:
        """The report, once every record has been added."""
        if self.phase == "before":
            self._open(self.head_position + 1)
        if self.phase == "in":
            self._close()
        self.notes += time_notes(self.early, self.late, self.unstamped)
        return Report(
            period=describe(self.period),
            opening_position=self.opening_position,
            closing_position=self.closing_position,
            records=self.records,
            head_position=self.head_position,
            meters=self.reports,
            findings=(
                *self.findings,
                *balance_findings(self.reports),
                *left_out_finding(self.left_out),
            ),
            notes=tuple(self.notes),
            head=tuple(self.ledgers[m].state for m in sorted(self.ledgers, key=self._order)),
        )
