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

Conservation (seeded + contributed - paid + corrected + transferred == amount + reserve + overflow)
is checked after every step; a failure is a bug and stops the worker (`InvariantViolation`, never
caught). A ceiling's ``carry`` overflow runs here as in the reference core; ``divert:`` is refused
at start (it would need an operation on a second meter's partition).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from controller.config.floor import FloorConfig, MeterDef
from controller.meter import decide_meter, evolve_meter, seed_meter
from controller.model.errors import ConfigError, InvalidEvent, InvariantViolation, RuleViolation
from controller.model.events import MeterEvent, ProgressiveHit
from controller.model.state import MeterState
from controller.snapshot import meter_from_dict, meter_to_dict
from streams.adapters.kafka.topics import TopicNames
from streams.codec import Output
from streams.scaleout.records import (
    MeterOp,
    Processed,
    SourcePos,
    dead_letter,
    dumps,
    event_output,
    op_from_bytes,
)


@dataclass(frozen=True, slots=True)
class MeterRecord:
    """A meter as the meter processor stores it: state, watermarks, last input."""

    meter: MeterState
    marks: Mapping[str, tuple[int, int]]
    partition: int
    offset: int

    def stamped(self, pos: SourcePos) -> MeterRecord:
        return MeterRecord(self.meter, self.marks, pos.partition, pos.offset)


def meter_record_to_bytes(record: MeterRecord) -> bytes:
    """The JSON stored in the ``meters`` table (the core's meter snapshot dict inside)."""
    return dumps(
        {
            "meter": meter_to_dict(record.meter),
            "marks": {table: list(mark) for table, mark in record.marks.items()},
            "partition": record.partition,
            "offset": record.offset,
        }
    )


def meter_record_from_bytes(payload: bytes) -> MeterRecord:
    """The record a stored value holds."""
    raw = json.loads(payload)
    return MeterRecord(
        meter=meter_from_dict(raw["meter"]),
        marks={table: (int(m[0]), int(m[1])) for table, m in raw["marks"].items()},
        partition=int(raw["partition"]),
        offset=int(raw["offset"]),
    )


class MeterProcessor:
    """Contributions, awards in settlement order and resets, one meter operation at a time."""

    def __init__(self, config: FloorConfig, names: TopicNames) -> None:
        diverting = sorted(m for m, d in config.meters.items() if d.divert_to)
        if diverting:
            # A divert is a second meter's operation, which this partition-per-meter processor
            # cannot write yet; refusing is better than dropping the excess. Carry works here.
            raise ConfigError(
                config.source,
                f"meters.{diverting[0]}.overflow",
                '"carry" for the Kafka engine (it does not run "divert:" overflows yet)',
            )
        mystery = sorted(m for m, d in config.meters.items() if d.mystery)
        if mystery:  # its draw and seal run in the embedded engine only (`controller.mystery`)
            raise ConfigError(
                config.source,
                f"meters.{mystery[0]}.progressive",
                'a progressive of kind "hand" for the Kafka engine (it does not run mystery '
                "levels yet; the embedded engine does)",
            )
        self._config = config
        self._names = names

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
        outputs: list[Output] = []
        if record is None:
            seeded = seed_meter(MeterState(meter_id=op.meter_id), definition, op.occurred_at)
            record = MeterRecord(MeterState(meter_id=op.meter_id), {}, pos.partition, pos.offset)
            record = self._apply(record, seeded, outputs)
        if op.kind == "seed" or op.claim is None:
            return Processed("seeded" if outputs else "duplicate", record.stamped(pos), (*outputs,))
        mark = record.marks.get(op.table_id)
        if mark is not None and (op.table_seq, op.index) <= mark:
            return Processed("duplicate", record.stamped(pos), (*outputs,))
        event = decide_meter(record.meter, definition, op.claim)
        record = self._apply(record, event, outputs)
        marks = {**record.marks, op.table_id: (op.table_seq, op.index)}
        stored = MeterRecord(record.meter, marks, pos.partition, pos.offset)
        return Processed("applied", stored, (*outputs,))

    def _parse(self, raw: bytes, key: str | None) -> tuple[MeterOp, MeterDef]:
        op = op_from_bytes(raw)
        definition = self._config.meters.get(op.meter_id)
        if definition is None:
            msg = f"unknown meter {op.meter_id!r}: it is not in the floor configuration"
            raise InvalidEvent(msg)
        if key != op.meter_id:
            msg = f"record key {key!r} is not the operation's meter {op.meter_id!r}"
            raise InvalidEvent(msg)
        return op, definition

    def _apply(self, record: MeterRecord, event: MeterEvent, outputs: list[Output]) -> MeterRecord:
        meter = evolve_meter(record.meter, event)
        if meter.explained_sub() != meter.held_sub():
            msg = f"meter {meter.meter_id} at seq {meter.seq} breaks conservation: {meter}"
            raise InvariantViolation(msg)
        names, meter_id = self._names, meter.meter_id
        outputs.append(event_output(names.events, meter_id, event, f"{meter_id}@{meter.seq}"))
        if isinstance(event, ProgressiveHit):
            outputs.append(event_output(names.awards, event.table_id, event, event.hit_id))
        return MeterRecord(meter, record.marks, record.partition, record.offset)
