"""``jackpot kafka reconcile``: ``jackpot reconcile`` on the Kafka engine's own topics.

::

    jackpot kafka reconcile --prefix floor1 [--config FLOOR.toml]
        [--gaming-day 2026-11-29 [--day-starts 06:00] [--utc-offset=-05:00]
         | --from 2026-11-29T11:00:00Z --to 2026-11-30T11:00:00Z]
        [--format table|csv|json] [--state]

The same report, formats and exit codes as ``jackpot reconcile`` (0 balanced, 1 a finding or
drift, 2 bad usage or an unreachable broker); how the topics become one log, and why position
windows are refused, is in `streams.scaleout.reconcile`. ``--state`` compares the workers'
stored meters with the log's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.config.floor import load_floor_config
from controller.model.errors import ConfigError, JackpotError
from streams.adapters.kafka.security import activate_from, add_security_arguments
from streams.adapters.kafka.settings import default_bootstrap
from streams.adapters.kafka.topics import TopicNames
from streams.cli.reconcile import period_from_args
from streams.reconcile.service import FORMATS, UsageError, is_ok, output
from streams.scaleout.reconcile import reconcile_topics

PROG = "jackpot kafka reconcile"


def add_parser(kafka: Any) -> None:
    """Register ``jackpot kafka reconcile`` on the ``kafka`` subparsers."""
    parser = kafka.add_parser("reconcile", help="reconcile every meter from the topics")
    parser.add_argument("--bootstrap", default=default_bootstrap(), help="Kafka bootstrap servers")
    parser.add_argument("--prefix", required=True, help="topic prefix (one deployment)")
    parser.add_argument("--config", type=Path, help="check against this configuration (TOML)")
    parser.add_argument("--gaming-day", metavar="YYYY-MM-DD", help="the gaming day to reconcile")
    parser.add_argument("--day-starts", default="06:00", metavar="HH:MM", help="local start")
    parser.add_argument("--utc-offset", default="+00:00", metavar="+HH:MM", help="e.g. =-05:00")
    parser.add_argument("--from", dest="start", metavar="TIME", help="RFC 3339 start (incl.)")
    parser.add_argument("--to", dest="end", metavar="TIME", help="RFC 3339 end (excl.)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format")
    parser.add_argument("--state", action="store_true", help="also check the stored meters")
    add_security_arguments(parser)
    parser.set_defaults(handler=handle, after_position=None, to_position=None)


def handle(args: argparse.Namespace) -> int:
    """Reconcile and print; exit 0 balanced, 1 differences or drift, 2 bad usage or store."""
    try:
        period = period_from_args(args)
        text = None if args.config is None else args.config.read_text(encoding="utf-8")
        config = None if text is None else load_floor_config(text, str(args.config))
    except (UsageError, ConfigError, OSError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    try:
        activate_from(args)
        names = TopicNames(args.prefix)
        report, drifts = reconcile_topics(args.bootstrap, names, period, config, state=args.state)
    except JackpotError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(output(report, drifts, args.format))
    return 0 if is_ok(report, drifts) else 1
