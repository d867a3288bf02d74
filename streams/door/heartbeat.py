"""The ``heartbeat`` of contract v2: a table saying it is alive when it has nothing else to say.

It is part of the door's contract (`schemas/table-event.v2.json`), not of liveness: the door
decodes it, the liveness tracker (`streams.liveness.tracker`) consumes it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Heartbeat:
    """A table saying it is alive (contract v2 ``heartbeat``). Never logged, never seen by the core:
    it changes no meter, and 10,000 tables beating every few seconds would swamp the log."""

    event_id: str
    table_id: str
    occurred_at: str
