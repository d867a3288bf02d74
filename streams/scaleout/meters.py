"""The meter processor's logic, free of Kafka and faust: the single writer of each meter.

Partitioned by meter: a meter's operations arrive in its partition's order, and that order IS the
meter's total order (a hit is priced from the meter as it stands, 649a.12(e)(4)). The state of a
meter (a `MeterRecord`) holds the core's meter state, the idempotency watermark per source table
and the (partition, offset) of the last input it reflects. Per input record:

1. **Redelivery**: an input at or before the stamped offset was processed already: skipped.
2. **Seed**: a meter with no state is seeded first (`controller.meter.seed_meter`), whether the
   operation is the explicit ``seed`` written at provisioning or the first claim; a ``seed`` for a
   meter that has state is a no-op. So a meter is seeded exactly once.
3. **Watermark**: a table's claims on one meter come in increasing (table seq, step index) order,
   because one round processor handles the table in order. A claim at or below the meter's mark for
   that table was applied already (a round processor re-emitted it after a crash): skipped.
4. **Apply**: `controller.meter.decide_meter` then `evolve_meter`; the meter event goes to the
   events topic (id ``{meter}@{meter_seq}``), a progressive hit also to the awards topic.
5. **Divert** (``overflow = "divert:<meter>"``): what a contribution puts above the ceiling goes,
   as a record keyed by the target meter, to ``meter-claims`` in the same transaction; the target
   applies it once, by its watermark per source meter (`streams.scaleout.diverts`).
6. **Mystery** levels are armed here, at the edge, and hit at their trigger
   (`streams.scaleout.mystery`, `controller.mystery.hit_at_trigger`).

Conservation (seeded + contributed - paid + corrected + transferred == amount + reserve + overflow)
is checked after every step; a failure is a bug and stops the worker (`InvariantViolation`, never
caught). A ceiling's ``carry`` overflow runs here as in the reference core.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Final

from controller.config.floor import FloorConfig, MeterDef
from controller.fast.meter_lane import meter_event, next_meter
from controller.meter import decide_meter, seed_meter
from controller.model.errors import ConfigError, InvalidEvent, InvariantViolation, RuleViolation
from controller.model.events import ContributionRecorded, MeterEvent, ProgressiveHit
from controller.model.state import MeterState
from controller.mystery import evolve_mystery, hit_at_trigger
from controller.snapshot import meter_from_dict, meter_to_dict
from streams.adapters.kafka.topics import TopicNames
from streams.codec import Output
from streams.scaleout.diverts import DivertOp, divert_from_bytes, divert_output, is_divert
from streams.scaleout.meter_ops import MeterOp, op_from_bytes
from streams.scaleout.mystery import MysteryEdge
from streams.scaleout.records import (
    Processed,
    SourcePos,
    dead_letter,
    dumps,
    event_output,
    fast_builder,
    processed,
    source_pos,
)


@dataclass(frozen=True, slots=True)
class MeterRecord:
    """A meter as the meter processor stores it: state, watermarks, last input. ``diverts`` is the
    last source ``meter_seq`` applied per diverting meter; ``hold`` the table event
    (``table:seq``) whose contribution hit a mystery level, until the level is armed again."""

    meter: MeterState
    marks: Mapping[str, tuple[int, int]]
    partition: int
    offset: int
    diverts: Mapping[str, int] = field(default_factory=dict)
    hold: str = ""

    # The constructor, not `dataclasses.replace`: it ran two or three times per claim and was a
    # fifth of the processor's time.
    def stamped(self, pos: SourcePos) -> MeterRecord:
        return meter_record(
            self.meter, self.marks, pos.partition, pos.offset, self.diverts, self.hold
        )

    def with_meter(self, meter: MeterState) -> MeterRecord:
        return meter_record(meter, self.marks, self.partition, self.offset, self.diverts, self.hold)


#: `MeterRecord`'s positional constructor (`controller.fast.build`: the same object, faster);
#: every module that builds one on a hot path builds it with this one.
meter_record: Final = fast_builder(
    MeterRecord, ("meter", "marks", "partition", "offset", "diverts", "hold")
)


def meter_record_to_bytes(record: MeterRecord) -> bytes:
    """The JSON stored in the ``meters`` table (the core's meter snapshot dict inside: an armed
    mystery trigger stays sealed there)."""
    body = {
        "meter": meter_to_dict(record.meter),
        "marks": {table: list(mark) for table, mark in record.marks.items()},
        "partition": record.partition,
        "offset": record.offset,
    }
    if record.diverts:
        body["diverts"] = dict(record.diverts)
    if record.hold:
        body["hold"] = record.hold
    return dumps(body)


def meter_record_from_bytes(payload: bytes) -> MeterRecord:
    """The record a stored value holds (records written before diverts lack the last fields)."""
    raw = json.loads(payload)
    return MeterRecord(
        meter=meter_from_dict(raw["meter"]),
        marks={table: (int(m[0]), int(m[1])) for table, m in raw["marks"].items()},
        partition=int(raw["partition"]),
        offset=int(raw["offset"]),
        diverts={meter: int(seq) for meter, seq in raw.get("diverts", {}).items()},
        hold=str(raw.get("hold", "")),
    )


class MeterProcessor:
    """Contributions, awards in settlement order and resets, one meter operation at a time."""

    def __init__(
        self, config: FloorConfig, names: TopicNames, mystery_key: bytes | None = None
    ) -> None:
        mystery = sorted(m for m, d in config.meters.items() if d.mystery)
        if mystery and mystery_key is None:
            raise ConfigError(
                config.source,
                f"meters.{mystery[0]}.progressive",
                "a sealing key for its mystery level: --mystery-key FILE (or "
                "JACKPOT_MYSTERY_KEY_FILE), the same file for every worker of the prefix",
            )
        self._config = config
        self.config = config  # for local apply's contributions (`streams.scaleout.contribute`)
        self._names = names
        # the topics written per claim, named once (`TopicNames` formats them on every read)
        self._events, self._awards, self._claims = names.events, names.awards, names.meter_claims
        self.events_topic = self._events  # likewise
        self._mystery = None if mystery_key is None else MysteryEdge(config, mystery_key)

    def process(
        self, record: MeterRecord | None, key: str | None, raw: bytes, pos: SourcePos
    ) -> Processed[MeterRecord]:
        """The outcome of one meter operation for the meter ``key`` whose record is ``record``."""
        if record is not None and record.partition == pos.partition and pos.offset <= record.offset:
            return Processed("redelivered", None)
        try:
            op, definition = self._parse(raw, key)
        except RuleViolation as exc:
            out = dead_letter(self._names.dead_letter, key or "", raw, str(exc), pos)
            return Processed("dead_letter", record.stamped(pos) if record else None, (out,))
        return self._operate(record, op, definition, pos)

    def local(
        self, record: MeterRecord | None, op: MeterOp, partition: int
    ) -> Processed[MeterRecord] | None:
        """A table's claim applied by the round lane's batch, not read from the topic
        (`streams.scaleout.local_apply`): the same steps as `process` after the parse, the record
        left stamped with the last topic input it reflects (a local claim has no place in the
        meter-claims log; a meter seeded by it reflects none: offset -1, so its provisioning
        ``seed``, read later, is the no-op a seed for a meter with state is); None for a meter
        the configuration does not name (it goes to the topic, whose reader dead-letters it)."""
        definition = self._config.meters.get(op.meter_id)
        if definition is None or op.claim is None:
            return None
        at = (partition, -1) if record is None else (record.partition, record.offset)
        pos = source_pos(self._claims, *at, 0)
        return self._operate(record, op, definition, pos)

    def _operate(
        self,
        record: MeterRecord | None,
        op: MeterOp | DivertOp,
        definition: MeterDef,
        pos: SourcePos,
    ) -> Processed[MeterRecord]:
        """Seed, divert, arm, watermark, apply (the module docstring's steps 2-6)."""
        outputs: list[Output] = []
        if record is None:
            seeded = seed_meter(MeterState(meter_id=op.meter_id), definition, op.occurred_at)
            record = MeterRecord(MeterState(meter_id=op.meter_id), {}, pos.partition, pos.offset)
            record = self._apply(record, seeded, outputs)
        if isinstance(op, DivertOp):
            return self._divert(record, definition, op, pos, outputs)
        record = self._armed(record, definition, op, outputs)
        if op.kind == "seed" or op.claim is None:
            return Processed("seeded" if outputs else "duplicate", record.stamped(pos), (*outputs,))
        mark = record.marks.get(op.table_id)
        if mark is not None and (op.table_seq, op.index) <= mark:
            return Processed("duplicate", record.stamped(pos), (*outputs,))
        event = meter_event(record.meter, definition, op.claim)  # `decide_meter`
        record = self._apply(record, event, outputs)
        if isinstance(event, ContributionRecorded):
            record = self._mystery_hit(record, definition, event, op, outputs)
        marks = {**record.marks, op.table_id: (op.table_seq, op.index)}
        stored = meter_record(
            record.meter, marks, pos.partition, pos.offset, record.diverts, record.hold
        )
        return processed("applied", stored, (*outputs,))

    def _divert(
        self,
        record: MeterRecord,
        definition: MeterDef,
        op: DivertOp,
        pos: SourcePos,
        outputs: list[Output],
    ) -> Processed[MeterRecord]:
        """Another meter's excess above its ceiling, applied once per source event."""
        source = op.claim.from_meter_id
        if op.from_seq <= record.diverts.get(source, 0):
            return Processed("duplicate", record.stamped(pos), (*outputs,))
        record = self._apply(record, decide_meter(record.meter, definition, op.claim), outputs)
        diverts = {**record.diverts, source: op.from_seq}
        stored = MeterRecord(
            record.meter, record.marks, pos.partition, pos.offset, diverts, record.hold
        )
        return Processed("applied", stored, (*outputs,))

    def _armed(
        self, record: MeterRecord, definition: MeterDef, op: MeterOp, outputs: list[Output]
    ) -> MeterRecord:
        """A mystery level knowing its trigger, armed afresh if it waits for one and ``op`` is not
        from the table event that hit it (`streams.scaleout.mystery`); other meters unchanged."""
        if self._mystery is None or not definition.mystery:
            return record
        meter = self._mystery.known(record.meter)
        hold = record.hold
        if not meter.mystery_commitment and not meter.retired and hold != _source(op):
            meter, armed = self._mystery.arm(meter, op.occurred_at)
            dedupe = f"{meter.meter_id}@{meter.seq}~armed"
            outputs.append(event_output(self._names.events, meter.meter_id, armed, dedupe))
            hold = ""
        return replace(record, meter=meter, hold=hold)

    def _mystery_hit(
        self,
        record: MeterRecord,
        definition: MeterDef,
        event: ContributionRecorded,
        op: MeterOp,
        outputs: list[Output],
    ) -> MeterRecord:
        """The hit and its reveal if ``event`` took a mystery level to its trigger."""
        won = hit_at_trigger(record.meter, definition, event)
        if won is None:
            return record
        hit, revealed = won
        record = self._apply(record, hit, outputs)
        dedupe = f"{hit.meter_id}@{hit.meter_seq}~revealed"
        outputs.append(event_output(self._names.events, hit.meter_id, revealed, dedupe))
        return replace(record, meter=evolve_mystery(record.meter, revealed), hold=_source(op))

    def _parse(self, raw: bytes, key: str | None) -> tuple[MeterOp | DivertOp, MeterDef]:
        op: MeterOp | DivertOp = divert_from_bytes(raw) if is_divert(raw) else op_from_bytes(raw)
        definition = self._config.meters.get(op.meter_id)
        if definition is None:
            msg = f"unknown meter {op.meter_id!r}: it is not in the floor configuration"
            raise InvalidEvent(msg)
        if key != op.meter_id:
            msg = f"record key {key!r} is not the operation's meter {op.meter_id!r}"
            raise InvalidEvent(msg)
        return op, definition

    def _apply(self, record: MeterRecord, event: MeterEvent, outputs: list[Output]) -> MeterRecord:
        meter = next_meter(record.meter, event)  # `evolve_meter` (`controller.fast.meter_lane`)
        if meter.explained_sub() != meter.held_sub():
            msg = f"meter {meter.meter_id} at seq {meter.seq} breaks conservation: {meter}"
            raise InvariantViolation(msg)
        meter_id = meter.meter_id
        outputs.append(event_output(self._events, meter_id, event, f"{meter_id}@{meter.seq}"))
        if isinstance(event, ProgressiveHit):
            outputs.append(event_output(self._awards, event.table_id, event, event.hit_id))
        onward = divert_output(self._claims, event)
        if onward is not None:  # in this batch's transaction, with the event that diverts
            outputs.append(onward)
        return record.with_meter(meter)


def _source(op: MeterOp) -> str:
    """The table event an operation came from (``table:seq``)."""
    return f"{op.table_id}:{op.table_seq}"
