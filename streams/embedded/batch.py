"""A submitted batch decided in one pass: the answers, the log records and the events, together.

The checks and their order are `streams.embedded.intake.admit`'s (the schema, the submitter's
scope, heartbeat or event, the duplicate check, the received-time bound, the core's verdict);
``tests/streams/embedded/test_batch_differential.py`` runs the same input through `admit`, as
the engine did one item at a time, and requires the same answers and the same log records. What
differs is the bookkeeping around them, which cost the engine ~7 µs an event (a third of the
door's, the core's and the encoding's together): the answer, the record and its key are built
here at once, without intermediate tuples; the frozen `Outcome` and `LogRecord` come from
`controller.fast.build` constructors; a table heard twice is noted once.

**The duplicate check without asking the log first.** A retry is rare and a query for every
batch's ids cost ~1.2 µs an event, so a batch is first decided with ``logged=None``: only ids
accepted earlier in the batch count as seen. That pass is right unless an id it decided is
already in the log, and the log tells: an accepted event's id makes the append refuse the whole
batch (`streams.ports.EventLog.append`: DuplicateRecord, nothing appended), and the ids of
events the pass refused after the duplicate check are returned as `Decided.unsure` for the
engine to look up. Either way the engine puts the session back and decides the batch again with
the payloads the log holds (`logged_payloads`), exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, TypeVar

from controller.config.floor import FloorConfig
from controller.fast import Session, contribution
from controller.fast.build import builder, slot_defaults
from controller.model.errors import RuleViolation
from controller.model.events import ContributionRecorded, Event, EventRejected
from controller.model.table_events import TableEvent, TableEventBase
from streams import native
from streams.codec import encode, record_key, reused_id_reason
from streams.door.fast_core import Emitted
from streams.door.fast_decode import validate_to_event
from streams.door.heartbeat import Heartbeat
from streams.embedded.intake import Outcome, Scope, refuse
from streams.embedded.received import ahead_reason
from streams.liveness.tracker import HEARTBEAT_NOTED, unknown_table_reason
from streams.ports import LogRecord

_T = TypeVar("_T")


def _builder(cls: type[_T], given: tuple[str, ...]) -> Callable[..., _T]:
    """`builder`'s constructor, natively when this process runs the extension (~100 ns a
    record or answer less: bench/PROPOSALS.md, "The records made natively")."""
    defaults = slot_defaults(cls, given)
    made = None if defaults is None else native.slot_builder(cls, given, defaults)
    return builder(cls, given) if made is None else made


#: `Final`, so that compiled code reads each from a C static, not the module's dict (~150
#: instructions a use: a record and an answer a line at least).
new_record: Final = _builder(LogRecord, ("key", "payload", "dedupe_id", "received_at"))
new_answer: Final = _builder(Outcome, ("event_id", "status", "reason"))
_REJECTED: Final = EventRejected  # read a line, from a C static (as above)


def _native_contribution() -> Callable[..., ContributionRecorded] | None:
    """The extension's `Builder` of the lock's contributions (`controller.fast.contribution.
    GIVEN` positionally), if this process runs it: ~1.4k instructions a contribution less than
    the compiled `contribution`'s fifteen ``object.__setattr__`` (bench/PROPOSALS.md, "The
    lock's contribution built natively"); ``tests/streams/native/test_slots.py`` requires the
    same event."""
    given = contribution.GIVEN
    defaults = slot_defaults(ContributionRecorded, given)
    return None if defaults is None else native.slot_builder(ContributionRecorded, given, defaults)


contribution.install(_native_contribution())


@dataclass(slots=True)
class Decided:
    """What a batch became: an answer per item, the records to append with the events they
    hold, the tables heard from, and the ids decided without the log's word (see above)."""

    outcomes: list[Outcome] = field(default_factory=list)
    records: list[LogRecord] = field(default_factory=list)
    events: list[Emitted] = field(default_factory=list)
    """What the listeners are told once the batch is durable; an accepted line's event may be
    the door's struct it was decided on (`streams.door.fast_core.recorded` gives its event)."""
    heard: list[str] = field(default_factory=list)
    unsure: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome, produced: tuple[Event, ...], now: str) -> None:
        """Note an answer and log the events it produced (a refusal's dead letter)."""
        self.outcomes.append(outcome)
        for event in produced:
            self.records.append(new_record(record_key(event), encode(event), "", now))
            self.events.append(event)


@dataclass(frozen=True, slots=True)
class Context:
    """What deciding a batch needs from the engine, fixed for the batch."""

    session: Callable[[], Session]
    """The engine's session now (arming a mystery level replaces it)."""
    arm: Callable[[], tuple[Event, ...]]
    scope: Scope | None
    clock: Callable[[], str]
    now: str
    latest: datetime | None
    quiet: FloorConfig | None = None
    """A configuration without a mystery level (None: none known): while the session's is this
    one, `arm` gives nothing, and a hot line need not ask it (`streams.embedded.lines`)."""


def fixed_session(ctx: Context) -> Session | None:
    """The engine's session for the whole batch while its configuration is the quiet one (then
    `ctx.arm` gives nothing and replaces no session, and a table event changes neither the
    session nor its configuration), asked once; else None: asked a line (an arming rebases it)."""
    session = ctx.session()
    return session if ctx.quiet is not None and session.config is ctx.quiet else None


def decide_batch(raws: list[object], logged: dict[str, bytes] | None, ctx: Context) -> Decided:
    """Decide ``raws`` in order on the engine's session. ``logged``: the payloads the log holds
    under the batch's ids, or None to decide without asking (the ids then left `unsure`)."""
    out, seen = Decided(), dict(logged or {})
    for raw in raws:
        decide_item(out, raw, seen, ctx, asked=logged is not None)
    return out


def decide_item(
    out: Decided, raw: object, seen: dict[str, bytes], ctx: Context, *, asked: bool
) -> None:
    """Decide one parsed item into ``out``: ``seen`` holds the payloads under the ids logged
    (``asked``) or accepted earlier in the batch."""
    try:
        command = validate_to_event(raw)  # msgspec fast path; jsonschema explains refusals
    except RuleViolation as exc:
        out.add(*refuse(raw, str(exc), ctx.clock), ctx.now)
        return
    decide_checked(out, lambda: raw, command, seen, ctx, asked=asked)


def decide_checked(
    out: Decided,
    raw: Callable[[], object],
    command: TableEvent | Heartbeat,
    seen: dict[str, bytes],
    ctx: Context,
    *,
    asked: bool,
) -> None:
    """`decide_item` of an item the door read as ``command``; ``raw()`` gives the item as
    parsed, for a refusal's dead letter (`streams.embedded.lines` parses a line only then)."""
    refusal = ctx.scope(command.table_id) if ctx.scope is not None else ""
    if refusal:  # before the heartbeat is noted or the event de-duplicated or decided
        out.add(*refuse(raw(), refusal, ctx.clock), ctx.now)
    elif isinstance(command, Heartbeat):
        _heartbeat(out, raw, command, ctx)
    else:
        _table_event(out, raw, command, seen, ctx, asked=asked)


def _heartbeat(out: Decided, raw: Callable[[], object], beat: Heartbeat, ctx: Context) -> None:
    """Noted, not logged: a heartbeat changes no meter."""
    reason = unknown_table_reason(ctx.session().config, beat.table_id)
    if reason:
        out.add(*refuse(raw(), reason, ctx.clock), ctx.now)
        return
    out.heard.append(beat.table_id)
    out.outcomes.append(new_answer(beat.event_id, "accepted", HEARTBEAT_NOTED))


def answered_before(
    out: Decided,
    raw: Callable[[], object],
    seen: dict[str, bytes],
    ctx: Context,
    *,
    event_id: str,
    table_id: str,
    payload: bytes,
) -> bool:
    """Whether this batch or the log accepted ``event_id`` before: the same payload is answered
    a duplicate (the table heard), another one refused as a reused id and dead-lettered."""
    earlier = seen.get(event_id)
    if earlier is None:  # the common answer, without comparing None with the payload
        return False
    if earlier == payload:
        out.heard.append(table_id)
        out.outcomes.append(new_answer(event_id, "duplicate", "already accepted"))
        return True
    out.add(*refuse(raw(), reused_id_reason(event_id), ctx.clock), ctx.now)
    return True


def answer_verdict(
    out: Decided,
    raw: Callable[[], object],
    seen: dict[str, bytes],
    ctx: Context,
    *,
    verdict: tuple[str, tuple[Emitted, ...]],
    asked: bool,
    ids: tuple[str, str, bytes],
) -> bool:
    """Answer the core's verdict (``verdict``: the received-time bound's reason, "" if within
    it, and what the session produced) on the item ``ids`` names (event id, table id, payload);
    True if accepted, the caller then logs what it produced. A refusal is dead-lettered with
    ``raw()`` and, undecided by the log (not ``asked``), its id left unsure: had the log held
    it, the answer would have been another."""
    ahead, produced = verdict
    event_id, table_id, payload = ids
    # `type(...) is`, not `isinstance`: `EventRejected` has no subclass, and an `isinstance`
    # that misses (every accepted line) reads the object's ``__class__`` too (~300 instructions)
    first = produced[0] if produced else None
    rejected = first if type(first) is _REJECTED else None
    if ahead or rejected is not None:
        if not asked:
            out.unsure.append(event_id)
        reason = rejected.reason if rejected is not None else ahead
        out.add(*refuse(raw(), reason, ctx.clock, rejected), ctx.now)
        return False
    seen[event_id] = payload
    out.heard.append(table_id)
    out.outcomes.append(new_answer(event_id, "accepted", ""))
    return True


def _table_event(
    out: Decided,
    raw: Callable[[], object],
    command: TableEvent,
    seen: dict[str, bytes],
    ctx: Context,
    *,
    asked: bool,
) -> None:
    event_id, table_id, payload = command.event_id, command.table_id, encode(command)
    if answered_before(out, raw, seen, ctx, event_id=event_id, table_id=table_id, payload=payload):
        return
    ahead = ahead_reason(command.occurred_at, ctx.latest)
    produced = () if ahead else ctx.session().step(command)  # decided: the session advanced
    verdict = (ahead, produced)
    ids = (event_id, table_id, payload)
    if answer_verdict(out, raw, seen, ctx, verdict=verdict, asked=asked, ids=ids):
        # An accepted table event is the first event it produces (`controller.floor.decide`).
        first = produced[0]
        _log(out, (*produced, *ctx.arm()), payload if first is command else None, ctx.now)


def _log(out: Decided, produced: tuple[Event, ...], payload: bytes | None, now: str) -> None:
    """The records of an accepted event: the table event's own first (its payload already
    written for the duplicate check), then what it produced."""
    for index, event in enumerate(produced):
        dedupe = event.event_id if isinstance(event, TableEventBase) else ""
        encoded = payload if index == 0 and payload is not None else encode(event)
        out.records.append(new_record(record_key(event), encoded, dedupe, now))
    out.events.extend(produced)
