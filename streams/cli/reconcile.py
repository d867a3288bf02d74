"""``jackpot reconcile``: every meter over a gaming day or any period, checked to the sub-unit.

::

    jackpot reconcile --db var/jackpot.db [--config FLOOR.toml]
        [--gaming-day 2026-11-29 [--day-starts 06:00] [--utc-offset=-05:00]
         | --from 2026-11-29T11:00:00Z --to 2026-11-30T11:00:00Z
         | --after-position N [--to-position M]]
        [--format table|csv|json] [--redis URL | --service URL [--token T]]
    jackpot reconcile --db var/jackpot.db --liability --gaming-day 2026-11-29 [--days N] ...

Without a period, the whole log; how a period is cut is in `controller.reconciliation.report`.
Write a
negative offset with "=" (``--utc-offset=-05:00``): argparse takes a lone "-05:00" for an option.
With ``--redis`` or ``--service`` the live meters are compared with the log
(`streams.reconcile.live`). Progress goes to stderr every ``--progress-every`` records (by
default only on a terminal). Exit 0
when everything adds up, 1 when any meter does not balance, any event is flagged or any live
meter drifts, 2 on bad usage or an unreachable store.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from controller.config.floor import FloorConfig, load_floor_config
from controller.model.errors import ConfigError, StoreUnavailable
from controller.reconciliation.report import Period
from streams.adapters.sqlite import SqliteLog
from streams.cli import reconcile_liability
from streams.ports import LiveMeters
from streams.reconcile.live import ServiceMeters, compare_live
from streams.reconcile.service import (
    FORMATS,
    UsageError,
    day_window,
    is_ok,
    output,
    parse_clock,
    parse_day,
    parse_instant,
    parse_offset,
    position_window,
    reconcile_log,
    time_window,
)


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
    parser.add_argument(
        "--progress-every",
        type=int,
        default=None,
        metavar="N",
        help="progress on stderr every N records (default: every 100,000, on a terminal only)",
    )
    parser.add_argument(
        "--liability",
        action="store_true",
        help="the liability per gaming day and level (with --gaming-day; NJ 13:69D-1.52)",
    )
    parser.add_argument("--days", type=int, default=1, metavar="N", help="with --liability")
    parser.set_defaults(handler=handle)


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


def _progress_every(given: int | None) -> int:
    """As asked, else every 100,000 records when stderr is a terminal (quiet in a pipe or log)."""
    if given is not None:
        return given
    return 100_000 if sys.stderr.isatty() else 0


def _progress(position: int, head: int) -> None:
    print(f"jackpot reconcile: at position {position} of {head}", file=sys.stderr, flush=True)


def handle(args: argparse.Namespace, live: LiveMeters | None = None) -> int:
    """Reconcile and print; exit 0 balanced, 1 differences or drift, 2 bad usage or store."""
    if getattr(args, "liability", False):
        return reconcile_liability.handle(args)
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
            every=_progress_every(args.progress_every),
        )
        drifts = compare_live(report.head, live) if live is not None else ()
    except StoreUnavailable as exc:
        print(f"jackpot reconcile: {exc}", file=sys.stderr)
        return 2
    finally:
        log.close()
    sys.stdout.write(output(report, drifts, args.format))
    return 0 if is_ok(report, drifts) else 1
