"""Playability in the Redis read model: one hash a sign reads beside the meter hashes.

Layout (``{prefix}:playability``, every value a string)::

    as_of           RFC 3339: when the publisher last computed it (rewritten every second)
    limit_seconds   the configured silence limit
    meter:{id}      {"status": "in_play"|"unplayable", "unplayable_at": [table ids, sorted]}
    table:{id}      {"status": "playable"} or
                    {"status": "unplayable", "since": RFC 3339, "heard": true|false}

A hash of its own because a meter's hash is replaced whole by each newer meter value
(`streams.adapters.redis.read_model`'s compare-and-write keyed on ``seq``), while playability
changes with time,
not with a meter's seq. The publisher writes a field only when its status changes (plus ``as_of``
every tick), so 10,000 beating tables cost Redis almost nothing; a silent table's field holds when
it crossed the limit, and a reader works out how long it has been silent.

**Stale.** A reader that finds ``as_of`` older than the limit (the publisher is down, or Redis was
emptied and not yet refilled) must not trust the statuses: `statuses_from` then reports every table
unplayable, as the embedded engine does after a controller restart: nobody can vouch that any table
is alive. A sign shows NOT IN PLAY for a meter whose field says "unplayable", or when the hash is
stale or missing.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from datetime import datetime

from controller.config.floor import FloorConfig
from controller.model.errors import StoreUnavailable
from controller.model.instants import aware_instant
from streams.clock import rfc3339, wall_now
from streams.liveness.tracker import (
    LivenessTracker,
    limit_of,
    meter_statuses,
    silent_reason,
    unknown_reason,
)
from streams.ports import Board, TableLiveness

logger = logging.getLogger(__name__)
AS_OF = "as_of"
LIMIT = "limit_seconds"
MeterStatus = dict[str, object]


class BoardPublisher:
    """Writes a tracker's statuses to the board: changed fields and ``as_of`` each `tick`; the
    whole board first, every ``resync_every`` seconds, after a failed write, and at once when
    the board is found gone (Redis came back empty). Used by both engines: the Kafka signage
    projector (`streams.scaleout.liveness`) and ``jackpot serve --redis``."""

    def __init__(
        self,
        tracker: LivenessTracker,
        config_of: Callable[[], FloorConfig | None],
        board: Board,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], datetime] = wall_now,
        resync_every: float = 60.0,
    ) -> None:
        self._tracker, self._config_of, self._board = tracker, config_of, board
        self._clock, self._wall, self._resync_every = clock, wall, resync_every
        self._written: dict[str, str] = {}
        self._whole_at: float | None = None  # monotonic time of the last whole write; None: due

    def fields(self, config: FloorConfig) -> dict[str, str]:
        """Every meter's and table's board value, now (without ``as_of``)."""
        statuses = self._tracker.statuses(config)
        fields = {table_field(t): table_value(s) for t, s in statuses.items()}
        for meter_id, status in meter_statuses(config, statuses).items():
            fields[meter_field(meter_id)] = meter_value(status)
        return fields

    def tick(self) -> bool:
        """Publish what changed since the last tick; False if Redis refused (logged once)."""
        config = self._config_of()
        if config is None:
            return True
        fields, now = self.fields(config), self._clock()
        whole = self._whole_at is None or now - self._whole_at >= self._resync_every
        written = self._written
        changed = fields if whole else {k: v for k, v in fields.items() if written.get(k) != v}
        stamp = {AS_OF: rfc3339(self._wall()), LIMIT: str(limit_of(config))}
        try:
            if self._board.write_playability(changed | stamp, replace=whole) and not whole:
                logger.warning("playability: the board was gone (Redis emptied); writing it whole")
                self._board.write_playability(fields | stamp, replace=True)
                whole = True
        except StoreUnavailable as exc:
            if self._whole_at is not None:
                logger.warning("playability: %s", exc)
            self._written, self._whole_at = {}, None
            return False
        self._written = fields
        if whole:
            self._whole_at = now
        return True


def meter_field(meter_id: str) -> str:
    """The board field of a meter's status."""
    return f"meter:{meter_id}"


def table_field(table_id: str) -> str:
    """The board field of a table's status."""
    return f"table:{table_id}"


def table_value(status: TableLiveness) -> str:
    """A table's board value: what changes only when its status does."""
    if status.playable:
        return _dumps({"status": "playable"})
    heard = status.silent_seconds is not None
    return _dumps({"status": "unplayable", "since": status.since, "heard": heard})


def meter_value(status: MeterStatus) -> str:
    """A meter's board value (`streams.live.playability.meter_statuses`)."""
    return _dumps(status)


def parse_time(text: str) -> datetime | None:
    """An RFC 3339 time as written here (None if it is not one)."""
    return aware_instant(text)


def statuses_from(
    fields: Mapping[str, str], config: FloorConfig, now: datetime
) -> dict[str, TableLiveness]:
    """Every configured table's status as the board says at ``now`` (module docstring: a stale
    or missing board makes every table unplayable)."""
    limit = limit_of(config)
    as_of_text = fields.get(AS_OF, "")
    as_of = parse_time(as_of_text)
    if as_of is None or (now - as_of).total_seconds() > limit:
        reason = (
            f"playability not published since {as_of_text}" if as_of else "no playability published"
        ) + ": the Kafka signage projector is down or Redis lost it"
        since = as_of_text if as_of else ""
        return {t: _unknown(t, since, reason) for t in config.tables}
    return {t: _table(t, fields.get(table_field(t)), limit, now) for t in config.tables}


def _table(table_id: str, value: str | None, limit: int, now: datetime) -> TableLiveness:
    """One table's status from its board value (a missing or unreadable one: unknown)."""
    try:
        row = json.loads(value) if value is not None else {}
    except ValueError:
        row = {}
    if not isinstance(row, dict) or row.get("status") not in ("playable", "unplayable"):
        return _unknown(table_id, "", "no playability published for this table")
    if row["status"] == "playable":
        return TableLiveness(table_id=table_id, playable=True, silent_seconds=0.0)
    since = str(row.get("since", ""))
    moment = parse_time(since)
    if not row.get("heard") or moment is None:
        return _unknown(table_id, since, unknown_reason("the projector", since))
    silent = max(0.0, (now - moment).total_seconds()) + limit
    reason = silent_reason(silent, limit)
    return TableLiveness(
        table_id=table_id, playable=False, silent_seconds=silent, since=since, reason=reason
    )


def _unknown(table_id: str, since: str, reason: str) -> TableLiveness:
    return TableLiveness(
        table_id=table_id, playable=False, silent_seconds=None, since=since, reason=reason
    )


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
