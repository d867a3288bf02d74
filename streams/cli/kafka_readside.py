"""``jackpot kafka readside``: the faust read side, rolling surveillance aggregates and the
contribution-rate alert over the committed events topic (`streams.scaleout.readside`).

::

    jackpot kafka readside --prefix floor1 [--day-starts 06:00] [--utc-offset=-05:00]
        [--metrics-port 9310] [--low 1/4] [--high 4] [--history 6] [--min-history 3]
        [--keep-hours 168] [--keep-days 62] [--stall-exit 60] [--redis redis://host:6379/0]

Runs until SIGTERM or SIGINT. Alerts go to ``<prefix>.readside-alerts`` (keyed by table, id
``{table}@{hour}``) and to ``jackpot_readside_contribution_alert{table}``. With ``--redis``
(default ``$REDIS_URL``) each review's windows go to Redis as the surveillance page's board
(`streams.scaleout.readside.board`). Windows older than ``--keep-hours`` hours and
``--keep-days`` gaming days behind the newest record of their partition are deleted (event time;
`streams.scaleout.readside.aggregate.Retention`). A mistake in the
options, or a prefix whose events topic does not exist, is one line on stderr and exit code 2.
Exit code 3: faust stopped consuming (``--stall-exit`` seconds owning partitions with committed
records nobody took; `streams.scaleout.readside.stall`): its supervisor starts it again.
"""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta
from fractions import Fraction
from typing import Any

from controller.model.errors import JackpotError
from streams.adapters.kafka.security import activate_from, add_security_arguments
from streams.adapters.kafka.settings import default_bootstrap
from streams.adapters.kafka.topics import TopicNames, partition_counts
from streams.adapters.redis.read_model import add_redis_arguments, password_from
from streams.reconcile.service import UsageError, parse_clock, parse_offset

PROG = "jackpot kafka readside"


def add_parser(kafka: Any) -> None:
    """Register ``jackpot kafka readside`` on the ``kafka`` subparsers."""
    parser = kafka.add_parser("readside", help="surveillance aggregates and alerts (faust)")
    parser.add_argument("--bootstrap", default=default_bootstrap(), help="Kafka bootstrap servers")
    parser.add_argument("--prefix", required=True, help="topic prefix (one deployment)")
    add_security_arguments(parser)
    parser.add_argument("--group", default="", help="faust app id / group (<prefix>-readside)")
    parser.add_argument("--day-starts", default="06:00", metavar="HH:MM", help="gaming day start")
    parser.add_argument("--utc-offset", default="+00:00", metavar="+HH:MM", help="e.g. =-05:00")
    parser.add_argument("--low", default="1/4", help="alert below this x the usual hourly rate")
    parser.add_argument("--high", default="4", help="alert above this x the usual hourly rate")
    parser.add_argument("--history", type=int, default=6, help="hours the usual rate looks at")
    parser.add_argument("--min-history", type=int, default=3, help="playing hours it needs")
    parser.add_argument("--grace", type=float, default=5.0, help="minutes before an hour closes")
    parser.add_argument("--tick", type=float, default=5.0, help="seconds between reviews")
    parser.add_argument(
        "--stall-exit",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="exit 3 after this long given nothing while records wait (faust stall); 0 = never",
    )
    parser.add_argument("--keep-hours", type=int, default=7 * 24, help="hourly windows kept")
    parser.add_argument("--keep-days", type=int, default=62, help="gaming-day windows kept")
    parser.add_argument("--metrics-port", type=int, default=0, help="Prometheus port; 0 = off")
    parser.add_argument("--metrics-host", default="127.0.0.1", help="metrics address")
    add_redis_arguments(parser, "Redis for the surveillance page's board ($REDIS_URL; none: off)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Run the read side; 2 with one line for a mistake in the options or the deployment."""
    from streams.scaleout.readside.app import provision_topics, run  # noqa: PLC0415  # faust

    try:
        settings = settings_from(args)
        provision_topics(settings)
    except (JackpotError, UsageError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    return run(settings)


def settings_from(args: argparse.Namespace) -> Any:
    """The read side's settings from the options, the events topic checked (UsageError or
    JackpotError with the reason)."""
    from streams.scaleout.readside.aggregate import DaySpec, Retention  # noqa: PLC0415
    from streams.scaleout.readside.alerts import Band  # noqa: PLC0415
    from streams.scaleout.readside.app import ReadSideSettings  # noqa: PLC0415

    spec = DaySpec(parse_clock(args.day_starts), parse_offset(args.utc_offset))
    low, high = _fraction("--low", args.low), _fraction("--high", args.high)
    if not (0 <= low < 1 < high) or args.history < 1 or not 1 <= args.min_history <= args.history:
        msg = "need 0 <= --low < 1 < --high and 1 <= --min-history <= --history"
        raise UsageError(msg)
    if args.tick <= 0 or args.grace < 0 or args.stall_exit < 0:
        msg = "--tick must be above 0, --grace and --stall-exit at least 0"
        raise UsageError(msg)
    if args.keep_hours < args.history + 2 or args.keep_days < 2:
        msg = "need --keep-hours >= --history + 2 (the alert reads them) and --keep-days >= 2"
        raise UsageError(msg)
    band = Band(low, high, args.history, args.min_history, timedelta(minutes=args.grace))
    activate_from(args)  # Kafka security for every client below
    events = TopicNames(args.prefix).events
    partitions = partition_counts(args.bootstrap, [events], timeout=10.0).get(events)
    if partitions is None:
        msg = f"topic {events} does not exist: run `jackpot kafka provision --prefix {args.prefix}`"
        raise UsageError(msg)
    try:
        redis_password = password_from(args.redis_password_file) if args.redis else None
    except OSError as exc:
        msg = f"--redis-password-file {args.redis_password_file}: {exc.strerror}"
        raise UsageError(msg) from exc
    return ReadSideSettings(
        bootstrap=args.bootstrap,
        prefix=args.prefix,
        partitions=partitions,
        spec=spec,
        band=band,
        retention=Retention(args.keep_hours, args.keep_days),
        group=args.group,
        tick_s=args.tick,
        stall_exit_s=args.stall_exit,
        metrics_port=args.metrics_port,
        metrics_host=args.metrics_host,
        redis_url=args.redis or "",
        redis_prefix=args.redis_prefix,
        redis_password=redis_password,
    )


def _fraction(option: str, text: str) -> Fraction:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError) as exc:
        msg = f"{option} {text!r} is not a number like 0.25 or 1/4"
        raise UsageError(msg) from exc


def main(argv: list[str] | None = None) -> int:
    """``python -m streams.cli.kafka_readside ...``: the same as ``jackpot kafka readside``."""
    parser = argparse.ArgumentParser(prog=PROG)
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["readside", *(sys.argv[1:] if argv is None else argv)])
    result: int = args.handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
