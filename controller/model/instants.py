"""RFC 3339 times as the project reads them: one parser, so every reader refuses the same texts.

Texts come from devices (``occurred_at``), from the log (``received_at``) and from users (report
windows, the simulator's start). A time without an offset names no instant (a local wall time
depends on where it was written), so it is refused everywhere, not guessed as UTC.
"""

from __future__ import annotations

from datetime import datetime


def parse_instant(text: str) -> datetime:
    """``text`` as a datetime with its offset; ValueError saying what is wrong otherwise."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        msg = f"time {text!r} is not RFC 3339 like 2026-11-29T11:00:00Z"
        raise ValueError(msg) from None
    if value.tzinfo is None:
        msg = f"time {text!r} has no offset; add Z or like -05:00"
        raise ValueError(msg)
    return value


def aware_instant(text: str) -> datetime | None:
    """``text`` as a datetime with its offset, or None if it is not a time or has no offset."""
    try:
        return parse_instant(text)
    except ValueError:
        return None
