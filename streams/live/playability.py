"""What signs and surveillance show of loss of communication (`streams.liveness.tracker`).

Silence is noticed by time passing, not by an event, so `PlayabilityWatch.tick` compares the
tracker's statuses with those of its last tick (called by the live streams while they run, at most
every ``min_interval`` seconds) and says what changed:

- for signs, each meter's ``{"status": "in_play"|"unplayable", "unplayable_at": [...]}``: a sign
  shows NOT IN PLAY while the meter is unplayable at every linked table, and a small "not in play
  at TCP-07" line while only some are;
- for surveillance, an alert row when a table goes silent (``table_silent``, with the reason and
  since when) and when a table reported silent is heard again (``table_heard``). At the first tick
  after a start every table is unknown: one ``tables_unknown`` alert says how many, rather than
  one per table, and a table first heard after the start raises no alert.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.config.floor import FloorConfig
from streams.clock import utc_now
from streams.live.alerts import Alert, Row
from streams.liveness.tracker import MeterStatus, meter_statuses
from streams.ports import StatusSource, TableLiveness


@dataclass(frozen=True, slots=True)
class Change:
    """What a tick found: every meter's status (when any changed) and the alert rows."""

    meters: dict[str, MeterStatus] | None
    alerts: list[Row]


class PlayabilityWatch:
    """Remembers the last statuses seen, so each change is shown once."""

    def __init__(
        self,
        tracker_of: Callable[[], StatusSource],
        config_of: Callable[[], FloorConfig | None],
        *,
        min_interval: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], str] = utc_now,
    ) -> None:
        self._tracker_of, self._config_of, self._wall = tracker_of, config_of, wall
        self._min_interval, self._clock = min_interval, clock
        self._last_tick: float | None = None
        self._playable: dict[str, bool] | None = None  # None: not ticked yet
        self._reported: set[str] = set()  # tables reported silent to surveillance
        self._meters: dict[str, MeterStatus] = {}
        self._lock = threading.Lock()

    def meters(self) -> dict[str, MeterStatus]:
        """The meter statuses as of the last tick."""
        with self._lock:
            return dict(self._meters)

    def tick(self, *, force: bool = False) -> Change | None:
        """What changed since the last tick; None if nothing did, or if the last tick was under
        ``min_interval`` ago (unless ``force``)."""
        now = self._clock()
        with self._lock:
            last = self._last_tick
            if not force and last is not None and now - last < self._min_interval:
                return None
            self._last_tick = now
            config = self._config_of()
            statuses = self._tracker_of().statuses(config)
            alerts = self._alerts(statuses)
            self._playable = {t: s.playable for t, s in statuses.items()}
            meters = meter_statuses(config, statuses)
            changed = meters != self._meters
            self._meters = meters
        if not changed and not alerts:
            return None
        return Change(dict(meters) if changed else None, alerts)

    def _alerts(self, statuses: dict[str, TableLiveness]) -> list[Row]:
        if self._playable is None:
            unknown = [s for s in statuses.values() if s.silent_seconds is None]
            if not unknown:
                return []
            reason = (
                f"{len(unknown)} of {len(statuses)} tables not heard from since the controller "
                "started: their progressives are unplayable until each table speaks"
            )
            alert = Alert(kind="tables_unknown", reason=reason, occurred_at=unknown[0].since)
            return [alert.row()]
        rows: list[Row] = []
        for table_id, status in statuses.items():
            was = self._playable.get(table_id)
            if not status.playable and status.silent_seconds is not None and was is not False:
                self._reported.add(table_id)
                alert = Alert(
                    kind="table_silent",
                    reason=status.reason,
                    table_id=table_id,
                    occurred_at=status.since,
                )
                rows.append(alert.row())
            elif status.playable and table_id in self._reported:
                self._reported.discard(table_id)
                reason = "table heard from again: its progressives are in play"
                alert = Alert(
                    kind="table_heard", reason=reason, table_id=table_id, occurred_at=self._wall()
                )
                rows.append(alert.row())
        return rows
