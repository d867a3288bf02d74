"""``jackpot reconcile --liability``: the progressive liability per gaming day and level, for
accounting (N.J.A.C. 13:69D-1.52), as CSV, JSON or a text table (`streams.reconcile.liability`).

::

    jackpot reconcile --db var/jackpot.db --liability --gaming-day 2026-11-29 [--days 7]
        [--day-starts 06:00] [--utc-offset=-05:00] [--config FLOOR.toml] [--format table|csv|json]

Exit 0 when every line balances and no event of those days was flagged, 1 otherwise, 2 on a usage
mistake or an unreadable store (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from datetime import date

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.errors import ConfigError, StoreUnavailable
from streams.adapters.sqlite import SqliteLog
from streams.reconcile.liability import MAX_DAYS, liability, liability_output
from streams.reconcile.service import UsageError, parse_clock, parse_day, parse_offset


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
