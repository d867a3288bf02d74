"""The stuck-sensor / replaying-device alert, as pure functions of the hourly aggregates.

Surveillance wants to hear about a table whose hourly contribution is far from its usual rate: a
stuck bet sensor (rounds settle, nothing is contributed, or much less than usual) or a device
replaying (much more than usual). Once an hour of a table has closed (the read side has seen
events ``grace`` past its end: event time, so a replay of last month raises last month's alerts
with their own ids, not today's), it is compared with the table's **usual rate**, the mean
contribution of its playing hours (rounds settled) among the ``history`` hours before it:

- ``no_contributions_while_playing``: rounds settled and nothing contributed, at a table that
  contributed in one of the ``history`` hours before (a table with no progressive wager never
  contributes: that is not an alert);
- ``below_usual``: rounds settled and less than ``low`` x the usual rate;
- ``above_usual``: more than ``high`` x the usual rate (playing or not: contributions without
  settled rounds are themselves odd).

The usual rate needs ``min_history`` playing hours; before that only the first rule applies (a
new table has no usual rate). The comparison is exact (integers and fractions: money is never a
float). An alert's id is ``{table}@{hour}``: raised again after a restart, it is the same alert.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Literal

from streams.scaleout.readside.aggregate import EMPTY, HOUR, Tally, iso, parse_at

Reason = Literal["no_contributions_while_playing", "below_usual", "above_usual"]


@dataclass(frozen=True, slots=True)
class Band:
    """How far from its usual rate an hour may be, and how much history makes a usual rate."""

    low: Fraction = Fraction(1, 4)
    high: Fraction = Fraction(4)
    history: int = 6
    min_history: int = 3
    grace: timedelta = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class Alert:
    """One table's hour that surveillance should look at."""

    table_id: str
    hour: str
    reason: Reason
    contributed_sub: int
    rounds: int
    usual_sub: Fraction | None  # the mean of the playing hours before (None: no usual rate)

    @property
    def alert_id(self) -> str:
        return f"{self.table_id}@{self.hour}"

    def to_json(self) -> dict[str, object]:
        """The alert record's body (the usual rate as an exact fraction string, and floored)."""
        usual = self.usual_sub
        return {
            "alert_id": self.alert_id,
            "table_id": self.table_id,
            "hour": self.hour,
            "reason": self.reason,
            "contributed_sub": self.contributed_sub,
            "rounds": self.rounds,
            "usual_sub": None if usual is None else usual.numerator // usual.denominator,
            "usual_sub_exact": None if usual is None else str(usual),
        }


def check(
    table_id: str, hour: str, current: Tally, before: Iterable[Tally], band: Band
) -> Alert | None:
    """The alert for ``current`` (one table's closed hour) given the hours ``before`` it."""
    earlier = list(before)
    playing = [t.contributed_sub for t in earlier if t.rounds > 0]
    usual = Fraction(sum(playing), len(playing)) if len(playing) >= band.min_history else None
    contributes = any(t.contributions > 0 for t in earlier)
    amount, rounds = current.contributed_sub, current.rounds
    reason: Reason | None = None
    if rounds > 0 and current.contributions == 0 and contributes:
        reason = "no_contributions_while_playing"
    elif usual is not None and usual > 0 and amount > band.high * usual:
        reason = "above_usual"
    elif usual is not None and rounds > 0 and amount < band.low * usual:
        reason = "below_usual"
    if reason is None:
        return None
    return Alert(table_id, hour, reason, amount, rounds, usual)


def floor_watermark(
    partitions: Mapping[int, tuple[datetime, float]], now: float, idle_s: float
) -> datetime | None:
    """The event time every source partition has reached: the least of their newest event times
    (``partitions``: partition -> (newest event time, when it was last read, monotonic s)).

    Partitions are read side by side and one may run ahead of another, so an hour is closed
    only when all have passed it. A partition read nothing from for ``idle_s`` (a quiet meter,
    or one caught up) holds nobody back; when all are idle, the newest time of all counts."""
    if not partitions:
        return None
    busy = [at for at, read in partitions.values() if now - read < idle_s]
    if busy:
        return min(busy)
    return max(at for at, _read in partitions.values())


def closed_hours(
    hourly: Mapping[tuple[str, str], Tally], watermark: datetime, band: Band
) -> list[tuple[str, str]]:
    """The (table, hour) windows that closed ``band.grace`` before ``watermark`` (the newest
    event time seen), oldest first."""
    return sorted(
        (key for key in hourly if parse_at(key[1]) + HOUR + band.grace <= watermark),
        key=lambda key: (key[1], key[0]),
    )


def alerts_for(
    hourly: Mapping[tuple[str, str], Tally],
    watermark: datetime,
    band: Band,
    done: frozenset[tuple[str, str]] = frozenset(),
    since: str = "",
) -> tuple[list[Alert], list[tuple[str, str]]]:
    """The alerts of every closed hour from ``since`` on (``hourly`` holds the ``history``
    hours before each) not in ``done``, and the hours checked (to add to it)."""
    closed = closed_hours(hourly, watermark, band)
    checked = [key for key in closed if key[1] >= since and key not in done]
    found = []
    for table_id, hour in checked:
        start = parse_at(hour)
        hours = (iso(start - HOUR * n) for n in range(1, 1 + band.history))
        before = [hourly.get((table_id, earlier), EMPTY) for earlier in hours]
        alert = check(table_id, hour, hourly[(table_id, hour)], before, band)
        if alert is not None:
            found.append(alert)
    return found, checked
