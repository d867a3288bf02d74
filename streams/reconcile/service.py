"""``jackpot reconcile``: every meter over a gaming day or any period, checked to the sub-unit.

::

    jackpot reconcile --db var/jackpot.db [--config FLOOR.toml]
        [--gaming-day 2026-11-29 [--day-starts 06:00] [--utc-offset=-05:00]
         | --from 2026-11-29T11:00:00Z --to 2026-11-30T11:00:00Z
         | --after-position N [--to-position M]]
        [--format table|csv|json] [--redis URL | --service URL [--token T]]

Without a period, the whole log; how a period is cut is in `controller.reconciliation.report`.
Write a
negative offset with "=" (``--utc-offset=-05:00``): argparse takes a lone "-05:00" for an option.
With ``--redis`` or ``--service`` the live meters are compared with the log
(`streams.reconcile.live`). Progress goes to stderr every ``--progress-every`` records. Exit 0
when everything adds up, 1 when any meter does not balance, any event is flagged or any live
meter drifts, 2 on bad usage or an unreachable store.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.errors import ConfigError, RuleViolation, StoreUnavailable
from controller.model.events import Event
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
from streams.adapters.sqlite import SqliteLog
from streams.embedded.engine import decode
from streams.ports import EventLog
from streams.reconcile.live import Drift, LiveMeters, ServiceMeters, compare_live
from streams.reconcile.text import render

FORMATS = ("table", "csv", "json")
Progress = Callable[[int, int], None]
_OFFSET = re.compile(r"([+-])([01][0-9]|2[0-3]):([0-5][0-9])")


class UsageError(ValueError):
    """Arguments that do not describe a period or a source; the message says what to pass."""


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser("reconcile", help="reconcile every meter over a gaming day or period")
    parser.add_argument("--db", required=True, type=Path, help="the event log (SQLite file)")
    parser.add_argument("--config", type=Path, help="check against this configuration (TOML)")
    parser.add_argument("--gaming-day", metavar="YYYY-MM-DD", help="the gaming day to reconcile")
    parser.add_argument("--day-starts", default="06:00", metavar="HH:MM", help="local start")
    parser.add_argument(
        "--utc-offset",
        default="+00:00",
        metavar="+HH:MM",
        help="local offset from UTC, e.g. --utc-offset=-05:00",
    )
    parser.add_argument("--from", dest="start", metavar="TIME", help="RFC 3339 start (incl.)")
    parser.add_argument("--to", dest="end", metavar="TIME", help="RFC 3339 end (excl.)")
    parser.add_argument("--after-position", type=int, metavar="N", help="period after position")
    parser.add_argument("--to-position", type=int, metavar="M", help="period to position (incl.)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format")
    parser.add_argument("--redis", metavar="URL", help="compare with the Redis read model")
    parser.add_argument("--redis-prefix", default="jackpot", help="the read model's key prefix")
    parser.add_argument("--service", metavar="URL", help="compare with GET URL/v1/meters/{id}")
    parser.add_argument(
        "--token",
        default=os.environ.get("JACKPOT_TOKEN", ""),
        help="bearer token for --service (default: $JACKPOT_TOKEN)",
    )
    parser.add_argument("--progress-every", type=int, default=100_000, metavar="N")
    parser.set_defaults(handler=handle)


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
    """An RFC 3339 time with its offset."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        msg = f"time {text!r} is not RFC 3339 like 2026-11-29T11:00:00Z"
        raise UsageError(msg) from exc
    if value.tzinfo is None:
        msg = f"time {text!r} has no offset; add Z or like -05:00"
        raise UsageError(msg)
    return value


def period_from_args(args: argparse.Namespace) -> Period:
    """The one period the arguments name (the whole log if none)."""
    chosen = [
        name
        for name, given in (
            ("--gaming-day", args.gaming_day is not None),
            ("--from/--to", args.start is not None or args.end is not None),
            (
                "--after-position/--to-position",
                args.after_position is not None or args.to_position is not None,
            ),
        )
        if given
    ]
    if len(chosen) > 1:
        msg = f"give one period, not {' and '.join(chosen)}"
        raise UsageError(msg)
    if args.gaming_day is not None:
        day = parse_day(args.gaming_day)
        return day_window(day, parse_clock(args.day_starts), parse_offset(args.utc_offset))
    if args.start is not None or args.end is not None:
        if args.start is None or args.end is None:
            msg = "--from and --to go together"
            raise UsageError(msg)
        return time_window(parse_instant(args.start), parse_instant(args.end))
    return position_window(args.after_position or 0, args.to_position)


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
                ("drift", d.meter_id, d.field, "", d.log, "", f"live {d.live}: {d.status}")
            )
        return buffer.getvalue()
    return render(report_document(report), drifts)


def is_ok(report: Report, drifts: Sequence[Drift]) -> bool:
    """Balanced, nothing flagged, and no live meter drifting or missing."""
    return report.balanced and all(d.status == "ahead" for d in drifts)


def _live(args: argparse.Namespace) -> LiveMeters | None:
    if args.redis and args.service:
        msg = "compare with --redis or --service, not both"
        raise UsageError(msg)
    if args.service:
        return ServiceMeters(args.service, args.token)
    if args.redis:
        from streams.adapters.redis.read_model import RedisReadModel  # noqa: PLC0415 - needs redis only here

        return RedisReadModel(args.redis, prefix=args.redis_prefix)
    return None


def _config(path: Path | None) -> FloorConfig | None:
    return None if path is None else load_floor_config(path.read_text(encoding="utf-8"), str(path))


def _progress(position: int, head: int) -> None:
    print(f"jackpot reconcile: at position {position} of {head}", file=sys.stderr, flush=True)


def handle(args: argparse.Namespace, live: LiveMeters | None = None) -> int:
    """Reconcile and print; exit 0 balanced, 1 differences or drift, 2 bad usage or store."""
    try:
        period = period_from_args(args)
        config = _config(args.config)
        live = live or _live(args)
    except (UsageError, ConfigError, OSError) as exc:
        print(f"jackpot reconcile: {exc}", file=sys.stderr)
        return 2
    if not args.db.is_file():
        print(f"jackpot reconcile: no event log at {args.db}; pass --db", file=sys.stderr)
        return 2
    log = SqliteLog(args.db)
    try:
        report = reconcile_log(
            log,
            period,
            config,
            to_head=live is not None,
            progress=_progress,
            every=args.progress_every,
        )
        drifts = compare_live(report.head, live) if live is not None else ()
    except StoreUnavailable as exc:
        print(f"jackpot reconcile: {exc}", file=sys.stderr)
        return 2
    finally:
        log.close()
    sys.stdout.write(output(report, drifts, args.format))
    return 0 if is_ok(report, drifts) else 1
