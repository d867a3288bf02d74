"""``jackpot kafka reconcile``: the Kafka engine's meters reconciled from its topics, as
``jackpot reconcile`` does for the SQLite log (`streams.reconcile.service`, same report, same
formats, same exit codes).

The events topic is read ``read_committed`` (nothing of an aborted batch), each ``dedupe_id`` kept
once, and laid out as one log: the configuration records first, then each partition in offset
order. A meter's events all sit in one partition (keyed by the meter) in the order its single
writer applied them, so every meter's ledger folds in its own order; the order across meters and
tables carries no meaning, which is why position windows are refused (use ``--gaming-day`` or
``--from/--to``, or the whole log).

``--state`` also compares the meters the workers stored (the meters changelog, what a restarted
worker resumes from) with the log's: any drift is a finding, as ``--redis`` is for the embedded
engine.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from confluent_kafka import Message

from controller.config.floor import load_floor_config
from controller.model.errors import ConfigError, JackpotError
from controller.model.money import format_subunits_exact
from controller.model.state import MeterState
from streams.adapters.kafka.read import as_bytes, header, read_topic
from streams.adapters.kafka.security import activate_from
from streams.adapters.kafka.topics import TopicNames
from streams.adapters.memory import MemoryLog
from streams.ports import LogRecord
from streams.reconcile.service import (
    FORMATS,
    UsageError,
    is_ok,
    output,
    period_from_args,
    reconcile_log,
)
from streams.scaleout.dump import worker_meters
from streams.scaleout.records import DEDUPE_HEADER

CONFIG_KEY = "floor"


def log_of(messages: Iterable[Message]) -> MemoryLog:
    """The events topic as one log (module docstring): configuration first, then partitions."""
    first: list[LogRecord] = []
    partitions: dict[int, list[LogRecord]] = {}
    seen: set[str] = set()
    for message in messages:
        dedupe_id = header(message, DEDUPE_HEADER)
        if dedupe_id and dedupe_id in seen:
            continue
        seen.add(dedupe_id)
        key = as_bytes(message.key()).decode("utf-8", "replace")
        record = LogRecord(key, as_bytes(message.value()))
        if key == CONFIG_KEY:
            first.append(record)
        else:
            partitions.setdefault(message.partition() or 0, []).append(record)
    log = MemoryLog()
    log.append(first)
    for part in sorted(partitions):
        log.append(partitions[part])
    return log


class StateMeters:
    """`streams.reconcile.live.LiveMeters` over the workers' stored meters, to the sub-unit."""

    def __init__(self, meters: dict[str, MeterState]) -> None:
        self._meters = meters

    def read(self, meter_id: str) -> dict[str, str] | None:
        """The stored meter's amount, reserve and seq; None if no worker stored it."""
        meter = self._meters.get(meter_id)
        if meter is None:
            return None
        return {
            "amount": format_subunits_exact(meter.amount_sub),
            "reserve": format_subunits_exact(meter.reserve_sub),
            "seq": str(meter.seq),
        }


def handle(args: argparse.Namespace) -> int:
    """Reconcile and print; exit 0 balanced, 1 differences or drift, 2 bad usage or store."""
    names = TopicNames(args.prefix)
    try:
        if args.after_position is not None or args.to_position is not None:
            msg = "positions mean nothing across partitions: use --gaming-day or --from/--to"
            raise UsageError(msg)
        period = period_from_args(args)
        text = None if args.config is None else args.config.read_text(encoding="utf-8")
        config = None if text is None else load_floor_config(text, str(args.config))
    except (UsageError, ConfigError, OSError) as exc:
        print(f"jackpot kafka reconcile: {exc}", file=sys.stderr)
        return 2
    try:
        activate_from(args)
        log = log_of(read_topic(args.bootstrap, names.events))
        report = reconcile_log(log, period, config)
        stored = StateMeters(worker_meters(args.bootstrap, names)) if args.state else None
    except JackpotError as exc:
        print(f"jackpot kafka reconcile: {exc}", file=sys.stderr)
        return 2
    from streams.reconcile.live import compare_live  # noqa: PLC0415 - httpx only when used

    drifts = compare_live(report.head, stored) if stored is not None else ()
    sys.stdout.write(output(report, drifts, args.format))
    return 0 if is_ok(report, drifts) else 1


def add_period_arguments(parser: Any) -> None:
    """``--gaming-day`` (with ``--day-starts``, ``--utc-offset``), ``--from``/``--to``,
    ``--format`` and ``--state``: the options of ``jackpot reconcile`` that apply here."""
    parser.add_argument("--config", type=Path, default=None, help="check against this TOML")
    parser.add_argument("--gaming-day", metavar="YYYY-MM-DD", help="the gaming day to reconcile")
    parser.add_argument("--day-starts", default="06:00", metavar="HH:MM", help="local start")
    parser.add_argument("--utc-offset", default="+00:00", metavar="+HH:MM", help="e.g. =-05:00")
    parser.add_argument("--from", dest="start", metavar="TIME", help="RFC 3339 start (incl.)")
    parser.add_argument("--to", dest="end", metavar="TIME", help="RFC 3339 end (excl.)")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format")
    parser.add_argument(
        "--state", action="store_true", help="also compare the workers' stored meters"
    )
    parser.set_defaults(after_position=None, to_position=None, handler=handle)
