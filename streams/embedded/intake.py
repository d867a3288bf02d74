"""The embedded engine's intake: what one submitted table event becomes.

Each raw item is checked in a fixed order — the schema, the submitter's scope, heartbeat or
event, the duplicate check against the log, the received-time bound — before the core decides
it; the first check that fails dead-letters it with its reason. `admit` is those rules for one
item, as a reader checks them; the engine decides a whole batch by the same checks in
`streams.embedded.batch` (with less bookkeeping per item), and
``tests/streams/embedded/test_batch_differential.py`` holds the two to the same answers and log
records. Plain functions over the session the engine hands in: they advance the session when the
item is decided, and never touch the log.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from controller.fast import Session
from controller.model.commands import OperatorCommand
from controller.model.errors import RuleViolation
from controller.model.events import Event, EventRejected
from controller.model.table_events import TableEvent
from streams.codec import encode, reused_id_reason
from streams.door.fast_decode import validate_to_event
from streams.door.heartbeat import Heartbeat
from streams.embedded.dead_letter import dead_letter
from streams.embedded.received import ahead_reason
from streams.liveness.tracker import HEARTBEAT_NOTED, unknown_table_reason
from streams.ports import EventLog

Status = Literal["accepted", "duplicate", "rejected"]
#: Why the submitter may not post an item for a table ("" if it may): the HTTP edge passes its
#: token's binding (`streams.http.tokens.Principal.refusal`), so the engine needs no idea of tokens.
Scope = Callable[[str], str]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer to one submitted event or command."""

    event_id: str
    status: Status
    reason: str = ""
    replayed: bool = False
    """An operator command's retry (its ``Idempotency-Key`` is in the log): the first answer."""
    conflict: bool = False
    """An ``Idempotency-Key`` already used for another request: refused, nothing applied."""


def logged_payloads(log: EventLog, raws: list[object]) -> dict[str, bytes]:
    """The payloads already in the log under the batch's event ids: one query per batch.

    A raw event that validates carries its ``event_id`` as this string, so every id `admit`
    checks was asked for (and the log's own dedupe refuses the append if one were missed)."""
    ids = {
        raw["event_id"]
        for raw in raws
        if isinstance(raw, dict) and isinstance(raw.get("event_id"), str)
    }
    return log.payloads_of(ids)


#: What `admit` answers: the outcome, the events produced and the reusable log payload.
Admitted = tuple[Outcome, tuple[Event, ...], bytes | None]


def admit(
    session: Session,
    raw: object,
    seen: dict[str, bytes],
    heard: list[str],
    *,
    scope: Scope | None,
    clock: Callable[[], str],
    latest: datetime | None = None,
) -> Admitted:
    """The outcome, the events produced and, when accepted, the first event's (the table
    event's own) log payload, already encoded for the duplicate check. ``seen`` holds the
    payloads of the batch's ids already logged (`logged_payloads`) or accepted earlier in the
    batch; ``heard`` gets the table of every heartbeat and every accepted (or repeated) event;
    ``scope`` refuses items for tables the submitter may not post for."""
    try:
        command = validate_to_event(raw)  # msgspec fast path; jsonschema explains refusals
    except RuleViolation as exc:
        return (*refuse(raw, str(exc), clock), None)
    refusal = scope(command.table_id) if scope is not None else ""
    if refusal:  # before the heartbeat is noted or the event de-duplicated or decided
        return (*refuse(raw, refusal, clock), None)
    if isinstance(command, Heartbeat):  # noted, not logged: it changes no meter
        return _heartbeat(session, raw, command, heard, clock)
    payload = encode(command)
    early = _known_or_ahead(raw, command, payload, seen, heard, clock=clock, latest=latest)
    if early is not None:
        return early
    return _decided(session, raw, command, payload, seen, heard=heard, clock=clock)


def _heartbeat(
    session: Session, raw: object, beat: Heartbeat, heard: list[str], clock: Callable[[], str]
) -> Admitted:
    """A heartbeat is noted for a table the floor knows, never logged: it changes no meter."""
    reason = unknown_table_reason(session.config, beat.table_id)
    if reason:
        return (*refuse(raw, reason, clock), None)
    heard.append(beat.table_id)
    return Outcome(beat.event_id, "accepted", HEARTBEAT_NOTED), (), None


def _known_or_ahead(
    raw: object,
    command: TableEvent,
    payload: bytes,
    seen: dict[str, bytes],
    heard: list[str],
    *,
    clock: Callable[[], str],
    latest: datetime | None,
) -> Admitted | None:
    """The answer before the core is asked, if there is one: a repeat of an accepted event is
    a duplicate (answered again, logged once), its id with another payload is refused, and so
    is an event received too far ahead of the clock (`ahead_reason`). None: decide it."""
    earlier = seen.get(command.event_id)
    if earlier == payload:
        heard.append(command.table_id)
        return Outcome(command.event_id, "duplicate", "already accepted"), (), None
    if earlier is not None:
        return (*refuse(raw, reused_id_reason(command.event_id), clock), None)
    ahead = ahead_reason(command.occurred_at, latest)
    if ahead:
        return (*refuse(raw, ahead, clock), None)
    return None


def _decided(
    session: Session,
    raw: object,
    command: TableEvent,
    payload: bytes,
    seen: dict[str, bytes],
    *,
    heard: list[str],
    clock: Callable[[], str],
) -> Admitted:
    """The core's decision, the session advanced: a refusal is dead-lettered with the core's
    reason; an accepted event's payload joins ``seen`` so a repeat later in the batch is a
    duplicate, and is handed back for the log when the event logged first is this one."""
    produced = session.step(command)
    first = produced[0]
    if isinstance(first, EventRejected):
        return (*refuse(raw, first.reason, clock, first), None)
    seen[command.event_id] = payload
    heard.append(command.table_id)
    # An accepted table event is the first event it produces (`controller.floor.decide`).
    reused = payload if first is command else None
    return Outcome(command.event_id, "accepted"), produced, reused


def refuse(
    raw: object, reason: str, clock: Callable[[], str], rejected: EventRejected | None = None
) -> tuple[Outcome, tuple[Event, ...]]:
    """A refused input is recorded with its reason and the raw input; it changes nothing."""
    record = dead_letter(raw, reason, clock, rejected)
    return Outcome(record.event_id, "rejected", reason), (record,)


def repeated(
    command: OperatorCommand, first: Event, clock: Callable[[], str]
) -> tuple[Outcome, tuple[Event, ...]]:
    """The answer to an operator command whose key was logged before with ``first``, and the
    dead letter to log when the key comes with another request (none for a true retry)."""
    if getattr(first, "request_digest", None) != command.request_digest:
        reason = (
            f"Idempotency-Key {command.idempotency_key!r} was already used for a different "
            "request; a retry must repeat the request exactly, a new request needs a new key"
        )
        request = {"event_id": command.command_id, "type": type(command).__name__}
        outcome, produced = refuse(request, reason, clock)
        return replace(outcome, conflict=True), produced
    if isinstance(first, EventRejected):
        return Outcome(command.command_id, "rejected", first.reason, replayed=True), ()
    return Outcome(command.command_id, "accepted", replayed=True), ()
