"""The controller's clock against a device's: a table event dated too far ahead is refused.

A device's ``occurred_at`` is kept as the time of the play, but reports, gaming days and pages go
by the controller's receive time (`streams.ports.LogRecord.received_at`); an ``occurred_at`` more
than ``[communication] max_clock_skew_seconds`` ahead of that is refused (issue 15: a device
dated 9999-12-31 ended a gaming-day report early).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final

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


def vouched_ahead_reason(occurred_at: str, latest: datetime | None) -> str:
    """`ahead_reason` of an ``occurred_at`` the door vouched for (``OCCURRED_AT_PATTERN``,
    `streams.door.struct_checks._instant_ok`), without a ``fromisoformat`` for the common answer:
    a UTC text ``YYYY-MM-DDTHH:MM:SS[.f]Z`` whose first 19 characters sort before ``latest``'s
    second (in UTC, the same fixed-width digits, so text order is time order) is dated before
    that second began, so not ahead; anything else is asked of `ahead_reason` (bench/PROPOSALS.md,
    "The door's hot lines decoded natively"). The whole text is compared, not its first 19
    characters (no slice made): against the 19 characters of the second, a longer text sorts
    before them exactly when its first 19 do (equal first 19 sort it after)."""
    if latest is None or before_second(occurred_at, _utc_second(latest)):
        return ""
    return ahead_reason(occurred_at, latest)


def utc_second(latest: datetime | None) -> str:
    """The second `vouched_ahead_reason` compares with ("" for no ``latest``: nothing is before
    it), for a caller that reads it once a batch (`streams.embedded.lines`)."""
    return "" if latest is None else _utc_second(latest)


def before_second(occurred_at: str, second: str) -> bool:
    """Whether ``occurred_at`` (vouched for) is a UTC text before ``second`` (`utc_second`'s):
    then `vouched_ahead_reason` answers "" without a ``fromisoformat``."""
    size = len(occurred_at)
    if size < 20 or occurred_at[size - 1] != "Z" or occurred_at[10] != "T":
        return False
    return len(second) == _SECOND_SIZE and occurred_at < second


_SECOND_SIZE: Final = 19  # ``YYYY-MM-DDTHH:MM:SS``


_SECOND: list[tuple[datetime | None, str]] = [(None, "")]


def _utc_second(latest: datetime) -> str:
    """``latest``'s second in UTC as ``YYYY-MM-DDTHH:MM:SS`` ("" if it has no zone or leaves
    the calendar), remembered for the last ``latest`` asked (one a batch)."""
    known, text = _SECOND[0]
    if known is latest:
        return text
    text = ""
    if latest.tzinfo is not None:
        try:
            text = latest.astimezone(UTC).replace(tzinfo=None).isoformat("T", "seconds")
        except (OverflowError, ValueError):
            text = ""
    _SECOND[0] = (latest, text)
    return text
