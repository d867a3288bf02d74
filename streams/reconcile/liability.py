"""``jackpot reconcile --liability``: the progressive liability per gaming day and level, for
accounting (N.J.A.C. 13:69D-1.52), as CSV, JSON or a text table.

::

    jackpot reconcile --db var/jackpot.db --liability --gaming-day 2026-11-29 [--days 7]
        [--day-starts 06:00] [--utc-offset=-05:00] [--format table|csv|json]

Each day is reconciled on its own (`controller.reconciliation.report`, cut as ``--gaming-day`` is)
and every level's line checked (`controller.reconciliation.liability`). Exit 0 when every line
balances and no event of those days was flagged, 1 otherwise.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from dataclasses import dataclass
from datetime import date, time, timedelta

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.errors import ConfigError, StoreUnavailable
from controller.model.money import format_subunits_exact
from controller.reconciliation.liability import (
    LIABILITY_HEADER,
    LiabilityLine,
    liability_document,
    liability_lines,
    liability_rows,
)
from controller.reconciliation.report import gaming_day
from streams.adapters.sqlite import SqliteLog
from streams.ports import EventLog
from streams.reconcile.service import (
    UsageError,
    parse_clock,
    parse_day,
    parse_offset,
    reconcile_log,
)
from streams.reconcile.text import table

MAX_DAYS = 366


def handle(args: argparse.Namespace) -> int:
    """``--liability``: print the report; exit 0 balanced, 1 differences, 2 bad usage or store."""
    try:
        first, days, config = _arguments(args)
    except (UsageError, ConfigError, OSError) as exc:
        print(f"jackpot reconcile: {exc}", file=sys.stderr)
        return 2
    if not args.db.is_file():
        print(f"jackpot reconcile: no event log at {args.db}; pass --db", file=sys.stderr)
        return 2
    log = SqliteLog(args.db)
    try:
        offset = parse_offset(args.utc_offset)
        starts = parse_clock(args.day_starts)
        result = liability(log, first, days, starts=starts, utc_offset=offset, config=config)
    except (UsageError, StoreUnavailable) as exc:
        print(f"jackpot reconcile: {exc}", file=sys.stderr)
        return 2
    finally:
        log.close()
    sys.stdout.write(liability_output(result, args.format))
    return 0 if result.ok else 1


def _arguments(args: argparse.Namespace) -> tuple[date, int, FloorConfig | None]:
    """The first day, the number of days and the configuration; UsageError if they don't fit."""
    others = [
        name
        for name, given in (
            ("--from/--to", args.start is not None or args.end is not None),
            ("--after-position/--to-position", args.after_position is not None),
            ("--to-position", args.to_position is not None),
            ("--redis/--service", bool(args.redis or args.service)),
        )
        if given
    ]
    if others:
        msg = f"--liability reports whole gaming days; drop {' and '.join(others)}"
        raise UsageError(msg)
    if args.gaming_day is None:
        msg = "--liability needs --gaming-day YYYY-MM-DD (the first day; --days N for more)"
        raise UsageError(msg)
    if not 1 <= args.days <= MAX_DAYS:
        msg = f"--days must be from 1 to {MAX_DAYS}, got {args.days}"
        raise UsageError(msg)
    config = None
    if args.config is not None:
        config = load_floor_config(args.config.read_text(encoding="utf-8"), str(args.config))
    return parse_day(args.gaming_day), args.days, config


@dataclass(frozen=True, slots=True, kw_only=True)
class Liability:
    """The lines of every day asked for, and the findings of those days' reconciliations."""

    lines: tuple[LiabilityLine, ...]
    findings: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Every line balances and nothing was flagged."""
        return not self.findings and all(line.balanced for line in self.lines)


def liability(
    log: EventLog,
    first: date,
    days: int,
    *,
    starts: time,
    utc_offset: timedelta,
    config: FloorConfig | None = None,
) -> Liability:
    """Reconcile ``days`` gaming days from ``first`` and return their liability lines."""
    lines: list[LiabilityLine] = []
    findings: list[str] = []
    for number in range(days):
        day = first + timedelta(days=number)
        report = reconcile_log(log, gaming_day(day, starts, utc_offset), config, to_head=False)
        lines += liability_lines(day.isoformat(), report)
        findings += [
            f"{day.isoformat()} [{f.kind}] {f.meter_id or 'log'}: {f.message}"
            for f in report.findings
        ]
    return Liability(lines=tuple(lines), findings=tuple(findings))


def liability_output(result: Liability, fmt: str) -> str:
    """The report as ``csv``, ``json`` or a text ``table``."""
    if fmt == "json":
        document = liability_document(result.lines)
        document["findings"] = list(result.findings)
        document["ok"] = result.ok
        return json.dumps(document, indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(LIABILITY_HEADER)
        writer.writerows(liability_rows(result.lines))
        return buffer.getvalue()
    return _text(result)


def _text(result: Liability) -> str:
    lines = [f"Progressive liability: {'BALANCED' if result.ok else 'DIFFERENCES FOUND'}"]
    rows = [
        (
            line.gaming_day,
            line.meter_id,
            *(
                format_subunits_exact(a)
                for a in (
                    line.opening.amount_sub + line.opening.reserve_sub + line.opening.overflow_sub,
                    line.contributions_primary_sub + line.contributions_reserve_sub,
                    line.carried_to_overflow_sub,
                    line.seeds_sub,
                    line.awards_paid_sub,
                    line.transfers_in_sub - line.transfers_out_sub,
                    line.corrections_sub - line.voids_sub,
                    line.closing.amount_sub + line.closing.reserve_sub + line.closing.overflow_sub,
                    line.difference_sub,
                )
            ),
        )
        for line in result.lines
    ]
    headers = (
        "day",
        "level",
        "opening",
        "contributed",
        "overflow",
        "seeds",
        "paid",
        "transfers",
        "corr-voids",
        "closing",
        "difference",
    )
    lines += table(headers, rows)
    if result.findings:
        lines += ["", "Findings:", *(f"  {f}" for f in result.findings)]
    return "\n".join(lines) + "\n"
