"""The controller's clock against a device's: a table event dated too far ahead is refused.

A device's ``occurred_at`` is kept as the time of the play, but reports, gaming days and pages go
by the controller's receive time (`streams.ports.LogRecord.received_at`); an ``occurred_at`` more
than ``[communication] max_clock_skew_seconds`` ahead of that is refused (issue 15: a device
dated 9999-12-31 ended a gaming-day report early).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from controller.config.floor import FloorConfig


def latest_allowed(config: FloorConfig | None, now: str) -> datetime | None:
    """The latest ``occurred_at`` a table event may carry when received at ``now``: the
    controller's clock plus the configured skew (None before a configuration or a readable now)."""
    if config is None:
        return None
    try:
        received = datetime.fromisoformat(now)
    except ValueError:
        return None
    skew = config.communication.max_clock_skew_seconds
    return received + timedelta(seconds=skew) if received.tzinfo is not None else None


def ahead_reason(occurred_at: str, latest: datetime | None) -> str:
    """Why an event dated ``occurred_at`` is refused as from the future ("" if it is not)."""
    if latest is None:
        return ""
    try:
        at = datetime.fromisoformat(occurred_at)
    except ValueError:
        return ""  # the door checked the shape; a time it cannot place is not judged here
    if at.tzinfo is None or at <= latest:
        return ""
    return (
        f"occurred_at {occurred_at} is ahead of the controller's clock by more than the "
        f"allowed skew (latest accepted now: {latest.isoformat()}); set the device's clock"
    )
