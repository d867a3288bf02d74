"""The edge's clocks: the wall clock as RFC 3339 text and as a UTC datetime.

The core never reads a clock (it is given times in commands); the edge reads this one module, so a
test can see every place time enters and inject its own.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> str:
    """The wall clock as RFC 3339 (only the edge reads it; the core is given it)."""
    return rfc3339(wall_now())


def wall_now() -> datetime:
    """The wall clock in UTC (every liveness clock defaults to it; tests inject their own)."""
    return datetime.now(UTC)


def rfc3339(moment: datetime) -> str:
    """A UTC time as the read models and answers write it: RFC 3339 with milliseconds."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
