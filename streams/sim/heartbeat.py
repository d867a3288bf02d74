"""Heartbeats of idle simulated tables (contract v2): a demo floor stays in play after its rounds.

A table device with nothing to report still says it is alive (docs/services.md: a heartbeat every
third of the silence limit when idle); without one the controller reports the table's progressives
NOT IN PLAY once the limit has passed, which is right for a dead table and wrong for a quiet demo.
``jackpot simulate --post URL --keep-alive S`` therefore sends one heartbeat per table every S
seconds after its rounds, until it is stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from streams.ports import Poster


def utc_now() -> datetime:
    """The wall clock, in UTC (a heartbeat's time of record is when it is sent)."""
    return datetime.now(UTC)


def heartbeat(table_id: str, event_id: str, at: datetime) -> dict[str, object]:
    """One heartbeat as the v2 contract writes it (no round, no seq)."""
    return {
        "event_id": event_id,
        "type": "heartbeat",
        "table_id": table_id,
        "occurred_at": at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "schema_version": 2,
    }


def keep_alive(
    poster: Poster,
    table_ids: Sequence[str],
    every: float,
    *,
    beats: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
    now: Callable[[], datetime] = utc_now,
) -> int:
    """Post a heartbeat for every table, then wait ``every`` seconds; ``beats`` times (None: until
    interrupted). Event ids carry the start time, so a second run never reuses one. The number of
    batches posted."""
    run = now().strftime("%Y%m%dT%H%M%S%f")
    posted = 0
    while beats is None or posted < beats:
        at = now()
        poster.post([heartbeat(t, f"hb-{t}-{run}-{posted}", at) for t in table_ids])
        posted += 1
        if beats is None or posted < beats:
            sleep(every)
    return posted
