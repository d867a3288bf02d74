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
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from controller.model.errors import RuleViolation
from controller.reconciliation.period import gaming_day
from streams.adapters.prometheus.readside import ReadSideSnapshot, WindowRow
from streams.codec import decode
from streams.scaleout.readside.aggregate import (
    EMPTY,
    HOUR,
    DaySpec,
    Retention,
    Tally,
    WindowKey,
    WindowKind,
    apply,
    fact_of,
    iso,
    parse_at,
    totals,
    window_keys,
)
from streams.scaleout.readside.alerts import Alert, Band, alerts_for, floor_watermark

logger = logging.getLogger(__name__)
NEVER = datetime.max.replace(tzinfo=UTC)
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
    #: the store's keys by (kind, start), so a review reads only recent windows; rebuilt by a
    #: scan whenever the store holds keys it does not know (restored or assigned partitions)
    index: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    indexed: int = 0
    retention: Retention = field(default_factory=Retention)
    #: per source partition: the hour of its newest record at the last sweep, and the bounds
    swept: dict[int, tuple[datetime, dict[str, str]]] = field(default_factory=dict)

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
        newest = self._newest(partition, fact.at)
        bounds = self._bounds(partition, newest)
        kept = [key for key in keys if key.start >= bounds[key.kind]]  # else swept, or soon
        outcome: Outcome = "redelivered" if kept else "ignored"
        for key in kept:
            text = key.text()
            tally = Tally.from_json(self.store.get(text))
            after = apply(tally, fact, offset)
            if after is not tally:
                if tally is EMPTY and text not in self.store:
                    self._index(text, key.kind, key.start)
                self.store[text] = after.to_json()
                outcome = "applied"
        self.seen[partition] = (newest, time.monotonic())
        return outcome

    def _newest(self, partition: int, at: datetime) -> datetime:
        seen = self.seen.get(partition)
        return at if seen is None else max(seen[0], at)

    def _bounds(self, partition: int, newest: datetime) -> dict[str, str]:
        """The retention's bounds at ``newest``; when the partition's event time entered another
        hour (or at its first record after a start: a restored store), its older windows are
        swept first."""
        swept = self.swept.get(partition)
        if swept is not None and swept[0] <= newest < swept[0] + HOUR:
            return swept[1]
        bounds = self.retention.bounds(newest, self.spec)
        self.swept[partition] = (self.spec.hour_of(newest), bounds)
        self._sweep(partition, bounds)
        return bounds

    def _sweep(self, partition: int, bounds: dict[str, str]) -> None:
        """Delete this partition's windows that start before ``bounds``. Only keys of the
        record's own partition: a faust table writes a deletion to the changelog partition of
        the record being processed, which is where those keys live."""
        self._fresh_index()
        suffix = f"|{partition}"
        for (kind, start), group in list(self.index.items()):
            if start >= bounds[kind]:
                continue
            for text in [k for k in group if k.endswith(suffix)]:
                group.discard(text)
                self.indexed -= 1
                if text in self.store:
                    del self.store[text]
            if not group:
                del self.index[(kind, start)]

    def stored(self, since: datetime | None = None) -> list[tuple[WindowKey, Tally]]:
        """The stored windows (a restart finds them restored from the changelog): all, or the
        hours from ``since`` on and the gaming days from the one before ``since``'s. Keys are
        compared as text first: only the recent ones are parsed (a store holds every window)."""
        self._fresh_index()
        if since is None:
            keys = [k for group in self.index.values() for k in group]
        else:
            day = (self.spec.day_of(since) - timedelta(days=1)).isoformat()
            bounds = {"h": iso(since), "d": day}
            keys = [
                k
                for (kind, start), group in self.index.items()
                if start >= bounds.get(kind, "~")
                for k in group
            ]
        found = [(k, self.store.get(k)) for k in keys]
        return [(WindowKey.parse(k), Tally.from_json(v)) for k, v in found if v is not None]

    def newest_hour(self) -> datetime | None:
        """The latest hour any stored window starts."""
        self._fresh_index()
        starts = [start for kind, start in self.index if kind == "h"]
        return parse_at(max(starts)) if starts else None

    def _index(self, text: str, kind: str, start: str) -> None:
        self.index.setdefault((kind, start), set()).add(text)
        self.indexed += 1

    def _fresh_index(self) -> None:
        """Rebuild the index when the store holds other keys than it counted: a restart's
        restore (faust fills the table from the changelog without this class seeing it)."""
        if len(self.store) != self.indexed:
            self._rescan()

    def _rescan(self) -> None:
        self.index, self.indexed = {}, 0
        for text in list(self.store):
            _table, kind, start, _partition = text.rsplit("|", 3)
            self._index(text, kind, start)


@dataclass
class Surveillance:
    """The alert state of one process: the hours checked, the alerts raised."""

    band: Band = field(default_factory=Band)
    checked: set[tuple[str, str]] = field(default_factory=set)
    alerting: dict[str, str] = field(default_factory=dict)  # table -> reason of its last hour
    snapshot: ReadSideSnapshot = field(default_factory=ReadSideSnapshot)
    #: the windows the last review read, summed over partitions (the page's board is made of them)
    windows: dict[tuple[str, WindowKind, str], Tally] = field(default_factory=dict)
    watermark: datetime | None = None  # the floor's event time at the last review
    restored: datetime | None = None  # the newest stored hour, until records are read
    #: the hour the floor watermark (less the grace) was in at the last call: [start, end)
    closing: tuple[datetime, datetime] = (
        datetime.max.replace(tzinfo=UTC),
        datetime.min.replace(tzinfo=UTC),
    )

    def due(self, aggregator: Aggregator, idle_s: float = 60.0) -> bool:
        """Whether the floor's event time entered another hour since the last call: the agent
        reviews then, so an hour is checked as it closes even while the read side catches up
        hours in seconds (the timer's reviews alone would jump past them)."""
        watermark = floor_watermark(aggregator.seen, time.monotonic(), idle_s)
        if watermark is None or self.closing[0] <= watermark - self.band.grace < self.closing[1]:
            return False
        start = aggregator.spec.hour_of(watermark - self.band.grace)
        self.closing = (start, start + HOUR)
        return True

    def review(
        self, aggregator: Aggregator, idle_s: float = 60.0, *, judge: bool = True
    ) -> list[Alert]:
        """Refresh the snapshot from the store; the alerts of hours that closed since (none
        before this process has read records: it cannot tell which hours all partitions
        passed, and the hours before were reviewed by its predecessor).

        ``judge`` False (this process does not own every partition, so it holds part of each
        table's hour): no hour is checked; a later review that judges checks the hours that
        closed meanwhile, as far back as the hours it reads (about two hours of event time).

        Only the windows the alert can still need are read: the hours from ``history + 2``
        before the watermark (the grace too), and the gaming days from the day before; hours
        are checked from ``history`` hours after the first read, so each has its trailing
        hours. The agent reviews each time an hour closes (`due`), so none is skipped."""
        watermark = floor_watermark(aggregator.seen, time.monotonic(), idle_s)
        if watermark is None and self.restored is None:
            self.restored = aggregator.newest_hour()
        reference = watermark or self.restored
        margin = self.band.grace + HOUR * (self.band.history + 2)
        since = None if reference is None else aggregator.spec.hour_of(reference - margin)
        windows = totals(aggregator.stored(since))
        hourly = {(t, start): tally for (t, kind, start), tally in windows.items() if kind == "h"}
        found: list[Alert] = []
        if judge and watermark is not None and since is not None:
            oldest = iso(since)
            self.checked = {key for key in self.checked if key[1] >= oldest}
            done, first = frozenset(self.checked), iso(since + HOUR * self.band.history)
            found, checked = alerts_for(hourly, watermark, self.band, done, first)
            for table_id, _hour in checked:
                self.alerting.pop(table_id, None)
            self.checked.update(checked)
            self.alerting.update({alert.table_id: alert.reason for alert in found})
        self.snapshot = _snapshot(windows, self.alerting, watermark, aggregator.spec)
        self.windows, self.watermark = windows, watermark
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
        WindowRow(table_id, _WINDOWS[kind], _seconds(start, spec), t.counts())
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
