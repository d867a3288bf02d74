"""The round processor's logic, free of Kafka and faust: one table event in, outputs and the
table's next state record out.

Partitioned by table: a table's events arrive in its partition's order and its state (a
`TableRecord`) lives in the changelog partition of the same number. Per input record:

1. **Redelivery**: the record stamps the (partition, offset) of the last input it reflects; an
   input at or before it was already processed and its outputs are durable (the worker produces
   outputs before it stores state), so it is skipped silently.
2. **Door**: JSON and schema checks (`streams.door.validation`); the record key must be the table
id.
3. **Duplicate**: an ``event_id`` accepted recently (the last `RECENT_IDS` accepted, and the
   current round's) with the same content is a device retry: nothing is applied, nothing is
   rejected. The same id with other content is refused, as the embedded engine does. (The
   embedded engine remembers every id; here a retry older than that window is refused by the
   core's sequence check instead: nothing is counted twice either way.)
4. **Decide**: `controller.rules.table.decide_table`; a refusal becomes an `EventRejected` on the
events
   topic and a dead-letter record (raw input and reason).
5. **Accept**: the table event, then each step in settlement order with ids ``{event_id}#{i}``:
   claims to the meter-claims topic (keyed by meter), fixed and envy awards to events and awards.

**Liveness.** Every input that shows a table is alive (an accepted event, a duplicate of one, a
heartbeat) also produces a record on ``<p>.liveness`` keyed by the table (`heard_output`, a
latest-wins output: the worker keeps the last per table of each batch, and a `Heard` is encoded
only if kept, and sent outside the batch's transaction once it committed:
`streams.scaleout.side`); the broker stamps it, and `streams.scaleout.liveness` turns those
stamps into playability. A refused input is no sign of life (as on the embedded engine), and a
worker that is down writes none, so its tables turn unplayable once the limit passes: the
controller's outage is seen too.

A ``heartbeat`` (contract version 2) passes the door and the key check and then produces only its
liveness record: it is not a table event, so it never reaches the core or the events topic; its
outcome is ``heartbeat`` (``jackpot_inputs_total{outcome="heartbeat",processor="round"}``). One
for a table the configuration does not name is refused like any bad input.

Everything here is a pure function of (state record, input record), so a redelivered input gives
byte-identical outputs with the same dedupe ids. The state record and its codec live in
`streams.scaleout.table_record`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Final, NoReturn

from controller.config.floor import FloorConfig
from controller.fast.lane import (
    Entry,
    decision_accepted,
    lock_claims,
    next_table,
    wager_accepted,
)
from controller.meter import ContributionClaim, HitClaim, ReversalClaim
from controller.model.errors import RuleViolation
from controller.model.events import EventRejected
from controller.model.state import TableState
from controller.model.table_events import (
    DecisionMade,
    RoundSettled,
    TableEvent,
    WagerPlaced,
    WagersLocked,
)
from controller.rules.table import TableStep, decide_table
from streams.adapters.kafka.topics import TopicNames
from streams.codec import MAX_RAW_KEPT, Output, encode, reused_id_reason
from streams.door.heartbeat import Heartbeat
from streams.liveness.tracker import unknown_table_reason
from streams.native import HotDecode
from streams.scaleout import table_read
from streams.scaleout.claim_output import new_claim
from streams.scaleout.fast_settle import FastSettle
from streams.scaleout.heard import new_heard
from streams.scaleout.records import (
    Processed,
    SourcePos,
    dead_letter,
    event_output,
    output,
    processed,
    safe_key,
)
from streams.scaleout.table_record import (
    TableRecord,
    table_record_from_bytes,
    table_record_to_bytes,
)

#: the lane's record and its codec, named here too: a lane is taken from one module (module doc)
__all__ = [
    "RoundProcessor",
    "TableRecord",
    "heard_output",
    "table_record_from_bytes",
    "table_record_to_bytes",
]


#: The steps that are meter claims (a tuple made once: ``A | B | C`` makes a union per step).
_CLAIMS: Final = (ContributionClaim, ReversalClaim, HitClaim)
#: An empty 8-byte blake2b: each event's digest starts from a copy (its keyword parsing, once).
DIGEST: Final = hashlib.blake2b(digest_size=8)


def digest_of(encoded: bytes) -> str:
    """An input's digest as a table record keeps it (`TableRecord.earlier`): ``blake2b(encoded,
    digest_size=8)``, its parameters set once (`DIGEST`)."""
    hashed = DIGEST.copy()
    hashed.update(encoded)
    return hashed.hexdigest()


class RoundProcessor:
    """Validation, hand evaluation, envy, contributions and award claims for one table event."""

    def __init__(
        self, config: FloorConfig, names: TopicNames, hot: HotDecode | None = table_read.HOT
    ) -> None:
        """``hot``: the native decoder of the hot lines (`table_read.HOT`: None without the
        extension; the tests give None to compare the two ways)."""
        self._config = config
        self._hot = hot
        self._names = names
        self._settle = FastSettle(config)
        # the topics written per input, named once (`TopicNames` formats them on every read)
        self._events, self._claims = names.events, names.meter_claims
        self._awards, self._liveness = names.awards, names.liveness

    def process(
        self, record: TableRecord | None, key: str | None, raw: bytes, pos: SourcePos
    ) -> Processed[TableRecord]:
        """The outcome of one input record for the table ``key`` whose record is ``record``."""
        if record is not None and record.partition == pos.partition and pos.offset <= record.offset:
            return Processed("redelivered", None)
        try:
            event, payload = self._parse(raw, key)
        except RuleViolation as exc:
            return self._reject(record, key=key, raw=raw, reason=str(exc), pos=pos, event=None)
        return self._event(record, key, raw, pos, (event, payload))

    def _event(
        self,
        record: TableRecord | None,
        key: str | None,
        raw: bytes,
        pos: SourcePos,
        parsed: tuple[TableEvent | Heartbeat, bytes | None],
    ) -> Processed[TableRecord]:
        """`process` of an input the door read (``parsed``: the event and its log record)."""
        event, payload = parsed
        if isinstance(event, Heartbeat):
            reason = unknown_table_reason(self._config, event.table_id)
            if reason:
                return self._reject(record, key=key, raw=raw, reason=reason, pos=pos, event=None)
            heard = (self._heard(event.table_id, "heartbeat", event.event_id, pos),)
            return processed("heartbeat", record.stamped(pos) if record else None, heard)
        # once: the digest and the events topic's record share it (the native decoder's, if any)
        encoded = encode(event) if payload is None else payload
        digest = digest_of(encoded)
        earlier = record.earlier(event.event_id) if record is not None else None
        if record is not None and earlier in ("", digest):
            heard = (self._heard(event.table_id, "duplicate", event.event_id, pos),)
            return processed("duplicate", record.stamped(pos), heard)
        if earlier is not None:
            reason = reused_id_reason(event.event_id)
            return self._reject(record, key=key, raw=raw, reason=reason, pos=pos, event=event)
        table = record.table if record is not None else None
        try:
            steps = self._decide(table, event)
        except RuleViolation as exc:
            return self._reject(record, key=key, raw=raw, reason=str(exc), pos=pos, event=event)
        return self._accept(record, event, steps, pos, (encoded, digest))

    def _decide(self, table: TableState | None, event: TableEvent) -> tuple[TableStep, ...]:
        """`decide_table`'s answer: a settlement from the fast path when it is sure of it."""
        if type(event) is RoundSettled:
            steps = self._settle.steps(table, event)
            if steps is not None:
                return steps
        elif type(event) is WagerPlaced:
            if wager_accepted(self._config, table, event):  # `controller.fast.lane`
                return ()
        elif type(event) is WagersLocked:
            claims = lock_claims(self._config, table, event)  # `controller.fast.lane`
            if claims is not None:
                return claims
        elif type(event) is DecisionMade and decision_accepted(self._config, table, event):
            return ()  # `controller.fast.lane`
        return decide_table(self._config, table, event)

    def _parse(self, raw: bytes, key: str | None) -> tuple[TableEvent | Heartbeat, bytes | None]:
        """The event (or heartbeat) and, if the native decoder answered, its log record."""
        # the door, fast (`table_read`; natively if it runs); jsonschema explains refusals
        event, payload = table_read.read(raw, self._hot)
        if key != event.table_id:
            self._wrong_key(key, event.table_id)
        return event, payload

    @staticmethod
    def _wrong_key(key: str | None, table_id: str) -> NoReturn:
        """The refusal of an input whose record key is not its table's id."""
        shown = key if key is None else safe_key(key)  # a rogue key may be any size
        msg = (
            f"record key {shown!r} is not the event's table_id {table_id!r}: produce "
            "table events keyed by table_id (order and state are kept per key)"
        )
        raise RuleViolation(msg)

    def _accept(
        self,
        record: TableRecord | None,
        event: TableEvent,
        steps: tuple[TableStep, ...],
        pos: SourcePos,
        encoded: tuple[bytes, str],
    ) -> Processed[TableRecord]:
        """The event (``encoded``: its log bytes and their digest), its steps and its state."""
        contributed: list[tuple[str, Entry]] = []
        outputs = self._outputs(event, steps, pos, encoded[0], contributed)
        # `evolve_table`, then `add_contribution` per contribution (`controller.fast.lane`)
        table = next_table(record.table if record else None, event, contributed)
        base = record or TableRecord(table, pos.partition, pos.offset)
        after = base.after(table, pos, event.event_id, encoded[1])
        return processed("accepted", after, tuple(outputs))

    def _outputs(
        self,
        event: TableEvent,
        steps: tuple[TableStep, ...],
        pos: SourcePos,
        value: bytes,
        contributed: list[tuple[str, Entry]],
    ) -> list[Output]:
        """An accepted event's outputs (``value``: its log bytes): the event, each step in order
        and its liveness record; each contribution's (round, entry) put into ``contributed``."""
        table_id, events = event.table_id, self._events
        claims, event_id = self._claims, event.event_id
        outputs = [output(events, table_id, value, event_id)]  # `event_output`'s
        for index, step in enumerate(steps):  # none for most events (wagers, decisions)
            step_id = f"{event_id}#{index}"
            if isinstance(step, _CLAIMS):
                if isinstance(step, ContributionClaim):
                    entry = (step.meter_id, step.primary_sub, step.reserve_sub)
                    contributed.append((step.round_id, entry))
                # `claim_bytes`'s record, encoded only if written (`streams.scaleout.claim_output`)
                outputs.append(new_claim(claims, step.meter_id, step_id, step, event.seq, index))
            else:
                outputs.append(event_output(events, table_id, step, step_id))
                outputs.append(event_output(self._awards, table_id, step, step_id))
        # `_heard`'s record, made here (a call less per accepted event)
        outputs.append(new_heard(self._liveness, table_id, "event", event_id, pos))
        return outputs

    def _heard(self, table_id: str, kind: str, event_id: str, pos: SourcePos) -> Output:
        """The table's liveness record (`streams.scaleout.liveness` reads the broker's stamp)."""
        return new_heard(self._liveness, table_id, kind, event_id, pos)

    def _reject(
        self,
        record: TableRecord | None,
        *,
        key: str | None,
        raw: bytes,
        reason: str,
        pos: SourcePos,
        event: TableEvent | None,
    ) -> Processed[TableRecord]:
        """An `EventRejected` on the events topic and the raw input on the dead-letter topic."""
        fields = _fields(raw) if event is None else {}
        event_id = event.event_id if event else _text(fields.get("event_id")) or pos.label
        table_id = event.table_id if event else _text(fields.get("table_id")) or (key or "")
        rejected = EventRejected(
            event_id=event_id[:128],
            table_id=table_id[:64],
            event_type=event.TYPE if event else _text(fields.get("type"))[:64],
            reason=reason,
            occurred_at=event.occurred_at if event else pos.occurred_at(),
            raw=raw[:MAX_RAW_KEPT].decode("utf-8", "replace"),
        )
        dedupe, out_key = f"rejected@{pos.label}", safe_key(table_id)
        outputs = (
            event_output(self._names.events, out_key or "unknown", rejected, dedupe),
            dead_letter(self._names.dead_letter, out_key, raw, reason, pos),
        )
        return Processed("rejected", record.stamped(pos) if record else None, outputs)


def heard_output(topic: str, table_id: str, kind: str, event_id: str, pos: SourcePos) -> Output:
    """A sign of life from ``table_id``: ``kind`` is "event", "duplicate" or "heartbeat"; the
    source position makes the dedupe id (a redelivery writes the same record again, harmlessly).
    Encoded only when read (`streams.scaleout.heard`)."""
    return new_heard(topic, table_id, kind, event_id, pos)


def _fields(raw: bytes) -> dict[str, object]:
    """The top-level fields of an input that failed the door, if it is a JSON object at all."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
