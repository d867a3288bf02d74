"""Liveness: which tables have been heard from lately, so a lost table's progressives are not shown
as in play.

A table is told apart from an idle one only because it speaks when idle: a ``heartbeat`` (contract
version 2) every third of the limit, or any accepted event. The tracker keeps when each table was
last heard by an injected *monotonic* clock (tests drive time without sleeping; a wall-clock jump
never makes a table look silent or alive). The limit is the floor configuration's
``[communication] table_silence_limit_seconds`` (default 30).

A table is *unplayable* when it has been silent longer than the limit, or has not been heard from
since this controller started: a controller that was down knows nothing of what happened meanwhile,
so every table is unknown until it speaks again. The status of a progressive meter at a table is
the table's; a meter is *not in play* when it is unplayable at every table linked to it.

Nothing here changes a meter or writes to the log: an outage and its recovery are only reported
(ingest answer, ``GET /v1/playability``, metrics, signs, surveillance), so recovery restores
exactly the state before it, because the state never moved.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from itertools import islice
from typing import Final

from controller.config.floor import FloorConfig
from controller.config.parts import DEFAULT_SILENCE_LIMIT_SECONDS
from streams.clock import rfc3339, wall_now
from streams.ports import TableLiveness

Monotonic = Callable[[], float]
#: A meter's status on a sign: ``status`` (in_play or unplayable) and ``unplayable_at``.
MeterStatus = dict[str, object]
Wall = Callable[[], datetime]
#: the reason of an accepted heartbeat's answer (status "accepted": the device need not resend)
HEARTBEAT_NOTED: Final = "heartbeat noted (not logged)"
#: how long an "unplayable anywhere" summary may be reused (the ingest answer asks per request)
SUMMARY_TTL_SECONDS: Final = 1.0
#: an ingest answer names at most this many tables per unplayable meter (and gives the count)
NAMED_TABLES: Final = 10
#: and at most this many unplayable meters (the first by id; ``unplayable_meters_total`` counts all)
NAMED_METERS: Final = 20


def unknown_table_reason(config: FloorConfig | None, table_id: str) -> str:
    """Why a heartbeat from ``table_id`` is refused ("" when its table is configured)."""
    if config is None:
        return "heartbeat.table_id: no floor configuration is active yet; retry shortly"
    if table_id in config.tables:
        return ""
    return (
        f"unknown table {table_id!r}: a heartbeat names a table of the floor configuration "
        f"({len(config.tables)} tables); check the device's table id"
    )


def limit_of(config: FloorConfig | None) -> int:
    """The configured silence limit in seconds (the default when no configuration is active)."""
    if config is None:
        return DEFAULT_SILENCE_LIMIT_SECONDS
    return config.communication.table_silence_limit_seconds


def silent_reason(silent: float, limit: int) -> str:
    """Why a table heard before is unplayable (the same words on both engines)."""
    return f"table feed silent for {int(silent)} s (limit {limit} s)"


def unknown_reason(started_by: str, since: str) -> str:
    """Why a table not heard since ``started_by`` started (at ``since``) is unplayable."""
    return f"not heard from since {started_by} started at {since}"


class LivenessTracker:
    """When each table was last heard, by a monotonic clock; statuses computed on demand."""

    def __init__(
        self,
        clock: Monotonic = time.monotonic,
        wall: Wall = wall_now,
        *,
        started_by: str = "the controller",
    ) -> None:
        self._clock = clock
        self._wall = wall
        self._started = clock()
        since = rfc3339(wall())
        self._unknown = (since, unknown_reason(started_by, since))
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()
        self._summary: tuple[object, float, dict[str, list[str]]] | None = None
        self._summary_down: frozenset[str] = frozenset()  # the tables the summary lists

    def uptime(self) -> float:
        """Seconds since the tracker (the controller) started."""
        return max(0.0, self._clock() - self._started)

    def heard(self, table_ids: Iterable[str]) -> None:
        """Note a sign of life (a heartbeat or an accepted event) from each table, now."""
        self.heard_ago((table_id, 0.0) for table_id in table_ids)

    def heard_ago(self, sightings: Iterable[tuple[str, float]]) -> None:
        """Note signs of life seen ``ago`` seconds before now (table id, ago): a record read some
        time after it was written, as on the Kafka engine. A sighting older than the one known
        never replaces it."""
        now = self._clock()
        with self._lock:
            for table_id, ago in sightings:
                moment = now - max(0.0, ago)
                if moment > self._last.get(table_id, float("-inf")):
                    self._last[table_id] = moment
                if table_id in self._summary_down:
                    self._summary = None  # a recovery shows at once, not after the TTL
                    self._summary_down = frozenset()

    def status(self, table_id: str, limit: int) -> TableLiveness:
        """``table_id``'s status under a silence limit of ``limit`` seconds."""
        now, wall = self._clock(), self._wall()
        with self._lock:
            last = self._last.get(table_id)
        return self._status(table_id, last, limit, now, wall)

    def statuses(self, config: FloorConfig | None) -> dict[str, TableLiveness]:
        """Every configured table's status, in configuration order (a playable table costs a
        dict lookup and a small object: 10,000 tables take a few milliseconds)."""
        if config is None:
            return {}
        limit, now = limit_of(config), self._clock()
        wall: datetime | None = None  # read only if a table is silent
        since, reason = self._unknown
        out: dict[str, TableLiveness] = {}
        with self._lock:
            last_of = self._last.get
            for table_id in config.tables:
                last = last_of(table_id)
                if last is None:
                    out[table_id] = TableLiveness(
                        table_id=table_id, playable=False, silent_seconds=None, since=since,
                        reason=reason,
                    )  # fmt: skip
                elif now - last <= limit:
                    out[table_id] = TableLiveness(
                        table_id=table_id, playable=True, silent_seconds=max(0.0, now - last)
                    )
                else:
                    wall = wall or self._wall()
                    out[table_id] = self._status(table_id, last, limit, now, wall)
        return out

    def _status(
        self, table_id: str, last: float | None, limit: int, now: float, wall: datetime
    ) -> TableLiveness:
        if last is None:
            since, reason = self._unknown
            return TableLiveness(
                table_id=table_id, playable=False, silent_seconds=None, since=since, reason=reason
            )
        silent = max(0.0, now - last)
        if silent <= limit:
            return TableLiveness(table_id=table_id, playable=True, silent_seconds=silent)
        return TableLiveness(
            table_id=table_id,
            playable=False,
            silent_seconds=silent,
            since=rfc3339(wall - timedelta(seconds=now - (last + limit))),
            reason=silent_reason(silent, limit),
        )

    def unplayable_meters(self, config: FloorConfig | None) -> dict[str, list[str]]:
        """Each meter unplayable at one or more tables -> those tables (sorted); reused for up to
        `SUMMARY_TTL_SECONDS` unless a listed table is heard from meanwhile."""
        now = self._clock()
        with self._lock:
            cached = self._summary
        if cached is not None and cached[0] is config and now - cached[1] < SUMMARY_TTL_SECONDS:
            return cached[2]
        statuses = self.statuses(config)
        summary = meters_down(config, statuses)
        with self._lock:
            self._summary = (config, now, summary)
            self._summary_down = frozenset(t for t, s in statuses.items() if not s.playable)
        return summary


def meters_down(
    config: FloorConfig | None, statuses: Mapping[str, TableLiveness]
) -> dict[str, list[str]]:
    """Each meter unplayable at one or more of its tables -> those tables, sorted (by meter id)."""
    down: dict[str, list[str]] = {}
    if config is None:
        return down
    for table_id, table in config.tables.items():
        status = statuses.get(table_id)
        if status is not None and not status.playable:
            for meter_id in dict.fromkeys(table.links.values()):
                down.setdefault(meter_id, []).append(table_id)
    return {meter_id: sorted(down[meter_id]) for meter_id in sorted(down)}


def meter_statuses(
    config: FloorConfig | None, statuses: dict[str, TableLiveness]
) -> dict[str, MeterStatus]:
    """Each configured meter -> its status on a sign."""
    out: dict[str, MeterStatus] = {}
    for meter_id, tables in meter_tables(config).items():
        down = sorted(t for t in tables if t in statuses and not statuses[t].playable)
        gone = bool(tables) and len(down) == len(tables)
        out[meter_id] = {"status": "unplayable" if gone else "in_play", "unplayable_at": down}
    return out


def meter_tables(config: FloorConfig | None) -> dict[str, list[str]]:
    """Each configured meter -> the tables linked to it, in configuration order."""
    linked: dict[str, list[str]] = {}
    if config is None:
        return linked
    for meter_id in config.meters:
        linked[meter_id] = []
    for table_id, table in config.tables.items():
        for meter_id in dict.fromkeys(table.links.values()):
            linked.setdefault(meter_id, []).append(table_id)
    return linked


def playability(config: FloorConfig | None, tracker: LivenessTracker) -> dict[str, object]:
    """Every table's and every meter's status (``GET /v1/playability``)."""
    statuses = tracker.statuses(config)
    down = meters_down(config, statuses)
    meters: dict[str, object] = {}
    for meter_id, tables in meter_tables(config).items():
        unplayable = down.get(meter_id, [])
        meters[meter_id] = {
            "status": "unplayable" if tables and len(unplayable) == len(tables) else "in_play",
            "tables": tables,
            "unplayable_at": unplayable,
        }
    return {
        "limit_seconds": limit_of(config),
        "tables": {table_id: status.row() for table_id, status in statuses.items()},
        "meters": meters,
    }


def batch_playability(
    config: FloorConfig | None, tracker: LivenessTracker, table_ids: Iterable[str]
) -> dict[str, object]:
    """What an ingest answer adds: the status of each configured table of the batch with its
    meters, and the meters unplayable anywhere: at most `NAMED_METERS` of them (the first by id;
    ``unplayable_meters_total`` counts them all), each with the count of its unplayable tables
    and at most `NAMED_TABLES` of them. ``GET /v1/playability`` has everything."""
    limit = limit_of(config)
    tables: dict[str, object] = {}
    known = config.tables if config is not None else {}
    for table_id in dict.fromkeys(table_ids):
        if table_id in known:
            links = list(dict.fromkeys(known[table_id].links.values()))
            tables[table_id] = tracker.status(table_id, limit).row() | {"meters": links}
    summary = tracker.unplayable_meters(config)
    unplayable = {
        meter_id: {"tables": len(down), "at": down[:NAMED_TABLES]}
        for meter_id, down in islice(summary.items(), NAMED_METERS)
    }
    return {
        "limit_seconds": limit,
        "tables": tables,
        "unplayable_meters": unplayable,
        "unplayable_meters_total": len(summary),
    }
