"""The reconciliation service: a log reconciled over a period, checked to the sub-unit.

One service that both doors call: ``jackpot reconcile`` (`streams.cli.reconcile`) and
``GET /v1/reconciliation`` (`streams.http.reconciliation`). It parses a period's words (gaming
day, day start, UTC offset, instants, positions), folds the log through the pure reconciliation
(`controller.reconciliation.report`), and renders the report as a table, CSV or JSON.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from datetime import date, datetime, time, timedelta

from controller.config.floor import FloorConfig
from controller.model.errors import RuleViolation
from controller.model.events import Event
from controller.model.instants import parse_instant as instant_or_error
from controller.reconciliation.report import (
    Period,
    PositionWindow,
    Report,
    TimeWindow,
    Unreadable,
    gaming_day,
    reconcile,
)
from controller.reconciliation.view import CSV_HEADER, csv_rows, report_document
from streams.codec import decode
from streams.ports import EventLog
from streams.reconcile.live import Drift
from streams.reconcile.text import render

FORMATS = ("table", "csv", "json")
Progress = Callable[[int, int], None]
_OFFSET = re.compile(r"([+-])([01][0-9]|2[0-3]):([0-5][0-9])")


class UsageError(ValueError):
    """Arguments that do not describe a period or a source; the message says what to pass."""


def parse_day(text: str) -> date:
    """A date as YYYY-MM-DD."""
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        msg = f"gaming day {text!r} is not a date like 2026-11-29"
        raise UsageError(msg) from exc


def parse_clock(text: str) -> time:
    """A local time of day as HH:MM."""
    try:
        return time.fromisoformat(text)
    except ValueError as exc:
        msg = f"day start {text!r} is not a time like 06:00"
        raise UsageError(msg) from exc


def parse_offset(text: str) -> timedelta:
    """An offset from UTC as +HH:MM or -HH:MM (or Z)."""
    if text in {"Z", "z"}:
        return timedelta(0)
    match = _OFFSET.fullmatch(text)
    if match is None:
        msg = f"UTC offset {text!r} is not like -05:00 or +01:00"
        raise UsageError(msg)
    sign = -1 if match.group(1) == "-" else 1
    return sign * timedelta(hours=int(match.group(2)), minutes=int(match.group(3)))


def parse_instant(text: str) -> datetime:
    """An RFC 3339 time with its offset (`controller.model.instants`), or a UsageError."""
    try:
        return instant_or_error(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def day_window(day: date, starts: time, utc_offset: timedelta) -> TimeWindow:
    """`gaming_day`, or UsageError for a day whose 24 hours leave the calendar (9999-12-31)."""
    try:
        return gaming_day(day, starts, utc_offset)
    except OverflowError as exc:
        msg = f"gaming day {day.isoformat()} ends after the last date the calendar holds"
        raise UsageError(msg) from exc


def time_window(start: datetime, end: datetime) -> TimeWindow:
    """[start, end), refused if empty."""
    if end <= start:
        msg = f"the period ends ({end.isoformat()}) before it starts ({start.isoformat()})"
        raise UsageError(msg)
    return TimeWindow(start=start, end=end)


def position_window(after: int, to: int | None) -> PositionWindow:
    """(after, to], refused if empty or negative."""
    if after < 0 or (to is not None and to <= after):
        msg = f"positions must satisfy 0 <= after < to (got after {after}, to {to})"
        raise UsageError(msg)
    return PositionWindow(after=after, to=to)


def records(
    log: EventLog, stop_after: int | None = None, progress: Progress | None = None, every: int = 0
) -> Iterator[tuple[int, Event | Unreadable, str]]:
    """The log decoded, from the first record, with each record's receive time; a record that
    does not decode is `Unreadable`."""
    head = log.head()
    for count, record in enumerate(log.read(after=0), start=1):
        if stop_after is not None and record.position > stop_after:
            return
        if progress is not None and every > 0 and count % every == 0:
            progress(record.position, head)
        try:
            yield record.position, decode(record.payload), record.received_at
        except (RuleViolation, ValueError, KeyError, TypeError, AttributeError) as exc:
            yield record.position, Unreadable(f"record does not decode: {exc}"), record.received_at


def reconcile_log(
    log: EventLog,
    period: Period,
    config: FloorConfig | None = None,
    *,
    to_head: bool = True,
    progress: Progress | None = None,
    every: int = 0,
) -> Report:
    """The report for ``period``. ``to_head=False`` stops reading at a position window's end (the
    report's head is then that position, not the log's)."""
    stop = period.to if isinstance(period, PositionWindow) and not to_head else None
    return reconcile(records(log, stop, progress, every), period, config)


def output(report: Report, drifts: Sequence[Drift], fmt: str) -> str:
    """The report (and any drift) as ``table``, ``csv`` or ``json``."""
    if fmt == "json":
        document = report_document(report)
        document["drift"] = [asdict(d) for d in drifts]
        document["ok"] = is_ok(report, drifts)
        return json.dumps(document, indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(CSV_HEADER)
        writer.writerows(csv_rows(report))
        for d in drifts:
            writer.writerow(
                ("drift", d.meter_id, d.field, "", d.log, "", "", f"live {d.live}: {d.status}")
            )
        return buffer.getvalue()
    return render(report_document(report), drifts)


def is_ok(report: Report, drifts: Sequence[Drift]) -> bool:
    """Balanced, nothing flagged, and no live meter drifting or missing."""
    return report.balanced and all(d.status == "ahead" for d in drifts)
