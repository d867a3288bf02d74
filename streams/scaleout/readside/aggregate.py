"""Rolling surveillance aggregates, as pure functions: what one committed record of the events
topic adds to its table's hour and gaming day, applied at most once.

The read side is at-least-once (faust commits offsets after it flushed the state it wrote, so
a crash redelivers a suffix of each partition, never skips one). Each aggregate therefore keeps
the **sequence of the last record it applied**: its offset in the events partition it came from.
A window of a table is kept per source partition (the key ``table|h|hour|partition``), so every
key is written from one partition only, in that partition's order, and a redelivered record is
one at or below its key's mark: skipped. The offset is the one sequence every record on the
topic has (``meter_seq`` exists only on meter events); the money path writes each record once
(transactions, ``read_committed``), so a record and its offset are one and the same.

A window's total for a table is the sum of its per-partition tallies (`merge`). Money is counted
in the units the events carry, as integers: contributions in sub-units (``primary_sub``,
``reserve_sub``) and wagers in cents, awards in cents. Never a float.

Windows: hours and gaming days cut at the gaming day's start (`DaySpec`, the same definition as
`controller.reconciliation.period.gaming_day`), so a gaming day is exactly 24 of its hours.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal

from controller.model.events import (
    ContributionRecorded,
    ContributionsReversed,
    EnvyAwarded,
    Event,
    FixedAwarded,
    ProgressiveHit,
)
from controller.model.instants import parse_instant
from controller.model.table_events import RoundSettled
from controller.reconciliation.period import gaming_day

WindowKind = Literal["h", "d"]
HOUR = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class DaySpec:
    """When a gaming day starts: ``starts`` local time, local being UTC + ``utc_offset``."""

    starts: time = time(6, 0)
    utc_offset: timedelta = timedelta(0)

    def day_of(self, at: datetime) -> date:
        """The gaming day ``at`` falls in (checked against `gaming_day`'s window)."""
        local = at.astimezone(UTC) + self.utc_offset
        day = (local - timedelta(hours=self.starts.hour, minutes=self.starts.minute)).date()
        window = gaming_day(day, self.starts, self.utc_offset)
        assert window.start <= at < window.end, (at, window)  # a bug here, never bad input
        return day

    def hour_of(self, at: datetime) -> datetime:
        """The start (UTC) of the hour of the gaming day that holds ``at``."""
        start = gaming_day(self.day_of(at), self.starts, self.utc_offset).start
        return start + HOUR * ((at - start) // HOUR)


@dataclass(frozen=True, slots=True)
class Retention:
    """How long a window stays in the store, counted in event time behind the newest record of
    its source partition (never by the wall clock: a read side catching up reads old hours).

    The alert reads ``history + 2`` hours back and the surveillance page 8 hours and 2 gaming
    days; Grafana keeps its own history from the metrics, and accounting's record is the events
    log itself, so the store need not grow with the floor's age (a compacted changelog keeps
    every key it was ever given until it is deleted)."""

    hours: int = 7 * 24
    days: int = 62

    def bounds(self, newest: datetime, spec: DaySpec) -> dict[str, str]:
        """The oldest window start kept, per kind, as the keys spell it (ISO text compares in
        time order): the hour ``hours`` before ``newest``'s and the gaming day ``days`` before."""
        hour = spec.hour_of(newest) - HOUR * self.hours
        day = spec.day_of(newest) - timedelta(days=self.days)
        return {"h": iso(hour), "d": day.isoformat()}


@dataclass(frozen=True, slots=True)
class Fact:
    """What one record of the events topic says about a table (zero fields: nothing)."""

    table_id: str
    at: datetime
    rounds: int = 0
    contributions: int = 0
    wager_cents: int = 0
    contributed_sub: int = 0
    reversals: int = 0
    reversed_sub: int = 0
    hits: int = 0
    hit_cents: int = 0
    awards: int = 0
    award_cents: int = 0


def fact_of(event: Event) -> Fact | None:
    """The fact an event carries for the surveillance aggregates, or None (most table events,
    meter seeds, corrections: not counted here).

    Hits are progressive hits (``amount_cents`` as priced); awards are fixed and envy awards.
    """
    match event:
        case ContributionRecorded():
            return Fact(
                event.table_id,
                parse_at(event.occurred_at),
                contributions=1,
                wager_cents=event.wager_cents,
                contributed_sub=event.primary_sub + event.reserve_sub,
            )
        case ContributionsReversed():
            sub = event.primary_sub + event.reserve_sub
            return Fact(event.table_id, parse_at(event.occurred_at), reversals=1, reversed_sub=sub)
        case ProgressiveHit():
            at = parse_at(event.occurred_at)
            return Fact(event.table_id, at, hits=1, hit_cents=event.amount_cents)
        case FixedAwarded() | EnvyAwarded():
            at = parse_at(event.occurred_at)
            return Fact(event.table_id, at, awards=1, award_cents=event.amount_cents)
        case RoundSettled():
            return Fact(event.table_id, parse_at(event.occurred_at), rounds=1)
    return None


def iso(moment: datetime) -> str:
    """A UTC moment as the window keys spell it (``...Z``)."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def parse_at(text: str) -> datetime:
    """An event's ``occurred_at`` (RFC 3339, the door checked it) as an aware UTC datetime; the
    project's one reader (`controller.model.instants`): a time without an offset is a ValueError
    (the record is unreadable), never read as this machine's local time."""
    return parse_instant(text).astimezone(UTC)


@dataclass(frozen=True, slots=True)
class Tally:
    """One table's counts and sums in one window from one source partition, and the offset of
    the last record applied (``mark``; -1: none)."""

    rounds: int = 0
    contributions: int = 0
    wager_cents: int = 0
    contributed_sub: int = 0
    reversals: int = 0
    reversed_sub: int = 0
    hits: int = 0
    hit_cents: int = 0
    awards: int = 0
    award_cents: int = 0
    mark: int = -1

    def to_json(self) -> dict[str, int]:
        """The tally as the changelog stores it."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def counts(self) -> dict[str, int]:
        """What the window counted, without the mark (the metrics and the page show these)."""
        return {name: getattr(self, name) for name in COUNTED}

    @classmethod
    def from_json(cls, value: Mapping[str, int] | None) -> Tally:
        """A stored tally (None: an empty one)."""
        if value is None:
            return EMPTY
        return cls(**{f.name: int(value[f.name]) for f in fields(cls) if f.name in value})


EMPTY = Tally()
COUNTED = tuple(f.name for f in fields(Fact) if f.name not in {"table_id", "at"})


def apply(tally: Tally, fact: Fact, offset: int) -> Tally:
    """``tally`` with ``fact`` added, unless its record (at ``offset``) was applied already.

    The same tally object comes back for a redelivery, so a caller writes nothing then."""
    if offset <= tally.mark:
        return tally
    sums = {name: getattr(tally, name) + getattr(fact, name) for name in COUNTED}
    return Tally(**sums, mark=offset)


def merge(tallies: Iterable[Tally]) -> Tally:
    """The sum of tallies of one window from several partitions (the mark means nothing then)."""
    total = dict.fromkeys(COUNTED, 0)
    for tally in tallies:
        for name in COUNTED:
            total[name] += getattr(tally, name)
    return replace(EMPTY, **total)


@dataclass(frozen=True, slots=True, order=True)
class WindowKey:
    """A table's window from one source partition: the key of the aggregates table."""

    table_id: str
    kind: WindowKind
    start: str  # the hour's UTC start (ISO) or the gaming day's date (ISO)
    partition: int

    def text(self) -> str:
        return f"{self.table_id}|{self.kind}|{self.start}|{self.partition}"

    @classmethod
    def parse(cls, text: str) -> WindowKey:
        """The key ``text`` holds (split from the right: only a table id could hold ``|``)."""
        table_id, kind, start, partition = text.rsplit("|", 3)
        if kind not in ("h", "d"):
            msg = f"not a window key: {text!r}"
            raise ValueError(msg)
        return cls(table_id, "h" if kind == "h" else "d", start, int(partition))


def window_keys(fact: Fact, partition: int, spec: DaySpec) -> tuple[WindowKey, WindowKey]:
    """The fact's hour and gaming day windows, for its source partition."""
    hour = iso(spec.hour_of(fact.at))
    day = spec.day_of(fact.at).isoformat()
    return (
        WindowKey(fact.table_id, "h", hour, partition),
        WindowKey(fact.table_id, "d", day, partition),
    )


def totals(stored: Iterable[tuple[WindowKey, Tally]]) -> dict[tuple[str, WindowKind, str], Tally]:
    """Every table's windows summed over the partitions: ``(table, kind, start) -> tally``."""
    groups: dict[tuple[str, WindowKind, str], list[Tally]] = {}
    for key, tally in stored:
        groups.setdefault((key.table_id, key.kind, key.start), []).append(tally)
    return {window: merge(parts) for window, parts in sorted(groups.items())}
