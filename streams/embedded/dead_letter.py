"""The embedded engine's dead-letter records: refused input kept with its reason, changing nothing.

A casino's surveillance and a regulator must be able to see every input the controller refused
and why, so a refusal is logged like any event (an `EventRejected`), with the raw input as it
arrived, cut to `MAX_RAW_KEPT` characters so a hostile body cannot grow the log without bound.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

from controller.model.commands import OperatorCommand
from controller.model.events import EventRejected
from streams.codec import MAX_RAW_KEPT


def dead_letter(
    raw: object, reason: str, clock: Callable[[], str], rejected: EventRejected | None = None
) -> EventRejected:
    """The record of refused input ``raw`` (the core's own refusal ``rejected`` when it decided
    one), with the raw input as received."""
    fields = raw if isinstance(raw, dict) else {}
    text = raw if isinstance(raw, str) else json.dumps(raw, sort_keys=True, default=str)
    text = text[:MAX_RAW_KEPT]
    event_id = str(fields.get("event_id", ""))[:128] or f"unidentified@{clock()}"
    record = rejected or EventRejected(
        event_id=event_id,
        table_id=str(fields.get("table_id", ""))[:64],
        event_type=str(fields.get("type", ""))[:64],
        reason=reason,
        occurred_at=clock(),
    )
    return replace(record, raw=text)


def refused_command(command: OperatorCommand, reason: str, now: str) -> EventRejected:
    """The record of an operator command the engine itself cannot carry out."""
    return EventRejected(
        event_id=command.command_id,
        table_id="",
        event_type=type(command).__name__,
        reason=reason,
        occurred_at=now,
    )
