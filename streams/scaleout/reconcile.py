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

from collections.abc import Iterable

from confluent_kafka import Message

from controller.config.floor import FloorConfig
from controller.model.money import format_subunits_exact
from controller.model.state import MeterState
from controller.reconciliation.report import Period, Report
from streams.adapters.kafka.read import as_bytes, header, read_topic
from streams.adapters.kafka.topics import TopicNames
from streams.adapters.memory import MemoryLog
from streams.codec import DEDUPE_HEADER
from streams.ports import LogRecord
from streams.reconcile.live import Drift, compare_live
from streams.reconcile.service import reconcile_log
from streams.scaleout.dump import worker_meters

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


def reconcile_topics(
    bootstrap: str,
    names: TopicNames,
    period: Period,
    config: FloorConfig | None,
    *,
    state: bool = False,
) -> tuple[Report, tuple[Drift, ...]]:
    """The report for ``period`` from the events topic and, with ``state``, the stored meters'
    drift from the log (module docstring)."""
    report = reconcile_log(log_of(read_topic(bootstrap, names.events)), period, config)
    if not state:
        return report, ()
    return report, compare_live(report.head, StateMeters(worker_meters(bootstrap, names)))
