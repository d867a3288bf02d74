"""The read side's step, free of faust: one record of the events topic into the aggregates store,
and the surveillance view (metrics rows, alerts) of what the store holds.

The store is any mutable mapping from window key text to a stored tally (a faust Table in the
read side, a dict in tests and in the benchmark's plain consumer), so both run the same code.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from controller.model.errors import RuleViolation
from controller.reconciliation.period import gaming_day
from streams.adapters.prometheus.readside import ReadSideSnapshot, WindowRow
from streams.codec import decode
from streams.scaleout.readside.aggregate import (
    DaySpec,
    Tally,
    WindowKey,
    WindowKind,
    apply,
    fact_of,
    parse_at,
    totals,
    window_keys,
)
from streams.scaleout.readside.alerts import Alert, Band, alerts_for, floor_watermark

logger = logging.getLogger(__name__)
Outcome = Literal["applied", "redelivered", "ignored", "unreadable"]
Store = MutableMapping[str, dict[str, int]]
#: Record types (the JSON ``"type"``) that can carry a fact: anything else is not decoded.
COUNTED_TYPES = (
    b'"contribution_recorded"',
    b'"contributions_reversed"',
    b'"progressive_hit"',
    b'"fixed_awarded"',
    b'"envy_awarded"',
    b'"round_settled"',
)


@dataclass
class Aggregator:
    """Applies records to ``store``, each at most once (`aggregate.apply`)."""

    store: Store
    spec: DaySpec = field(default_factory=DaySpec)
    #: per source partition: the newest event time read, and when (monotonic seconds)
    seen: dict[int, tuple[datetime, float]] = field(default_factory=dict)

    def take(self, value: bytes | None, partition: int, offset: int) -> Outcome:
        """Apply the record at (``partition``, ``offset``); what happened to it."""
        if not value or not any(kind in value for kind in COUNTED_TYPES):
            return "ignored"
        try:
            fact = fact_of(decode(value))
            keys = () if fact is None else window_keys(fact, partition, self.spec)
        except (RuleViolation, ValueError, KeyError, TypeError, AttributeError) as exc:
            logger.warning("readside: record %d:%d does not decode: %s", partition, offset, exc)
            return "unreadable"
        except OverflowError as exc:  # a gaming day past the calendar's end (year 9999)
            logger.warning("readside: record %d:%d has no gaming day: %s", partition, offset, exc)
            return "unreadable"
        if fact is None:
            return "ignored"
        outcome: Outcome = "redelivered"
        for key in keys:
            text = key.text()
            tally = Tally.from_json(self.store.get(text))
            after = apply(tally, fact, offset)
            if after is not tally:
                self.store[text] = after.to_json()
                outcome = "applied"
        newest = self.seen.get(partition)
        at = fact.at if newest is None else max(newest[0], fact.at)
        self.seen[partition] = (at, time.monotonic())
        return outcome

    def stored(self) -> list[tuple[WindowKey, Tally]]:
        """Every stored window (a restart finds them in the store restored from its changelog)."""
        return [(WindowKey.parse(k), Tally.from_json(v)) for k, v in list(self.store.items())]


@dataclass
class Surveillance:
    """The alert state of one process: the hours checked, the alerts raised."""

    band: Band = field(default_factory=Band)
    checked: set[tuple[str, str]] = field(default_factory=set)
    alerting: dict[str, str] = field(default_factory=dict)  # table -> reason of its last hour
    snapshot: ReadSideSnapshot = field(default_factory=ReadSideSnapshot)

    def review(self, aggregator: Aggregator, idle_s: float = 60.0) -> list[Alert]:
        """Refresh the snapshot from the store; the alerts of hours that closed since (none
        before this process has read records: it cannot tell which hours all partitions
        passed, and the hours before were reviewed by its predecessor)."""
        windows = totals(aggregator.stored())
        hourly = {(t, start): tally for (t, kind, start), tally in windows.items() if kind == "h"}
        watermark = floor_watermark(aggregator.seen, time.monotonic(), idle_s)
        found: list[Alert] = []
        if watermark is not None:
            found, checked = alerts_for(hourly, watermark, self.band, frozenset(self.checked))
            for table_id, _hour in checked:
                self.alerting.pop(table_id, None)
            self.checked.update(checked)
            self.alerting.update({alert.table_id: alert.reason for alert in found})
        self.snapshot = _snapshot(windows, self.alerting, watermark, aggregator.spec)
        return found


def _snapshot(
    windows: Mapping[tuple[str, WindowKind, str], Tally],
    alerting: dict[str, str],
    watermark: datetime | None,
    spec: DaySpec,
) -> ReadSideSnapshot:
    """The latest hour and gaming day of each table as metric rows."""
    latest: dict[tuple[str, str], tuple[str, Tally]] = {}
    for (table_id, kind, start), tally in windows.items():  # sorted: the last start wins
        latest[(table_id, kind)] = (start, tally)
    rows = [
        WindowRow(table_id, _WINDOWS[kind], _seconds(start, spec), _values(t))
        for (table_id, kind), (start, t) in sorted(latest.items())
    ]
    tables = sorted({table_id for table_id, _kind in latest})
    seconds = 0.0 if watermark is None else watermark.timestamp()
    return ReadSideSnapshot(rows, dict(alerting), tables, seconds)


_WINDOWS = {"h": "hour", "d": "gaming_day"}


def _seconds(start: str, spec: DaySpec) -> float:
    """A window's start in Unix seconds (a gaming day starts at ``spec.starts`` local time)."""
    if "T" in start:
        return parse_at(start).timestamp()
    return gaming_day(date.fromisoformat(start), spec.starts, spec.utc_offset).start.timestamp()


def _values(tally: Tally) -> dict[str, int]:
    values = tally.to_json()
    values.pop("mark")
    return values
