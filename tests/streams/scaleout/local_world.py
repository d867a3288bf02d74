"""One worker's two lanes over in-memory logs, batch by batch as `streams.scaleout.txloop` runs
them (`streams.scaleout.batch.decide`), with the meter-claims partitions it owns chosen per
batch: the claims on owned meters applied in the round lane's batch
(`streams.scaleout.local_apply`), the others written to the claims log and applied by the
partition's owner, this worker or another. A committed batch's records go to the "changelog"
as bytes and back (a restore), so what survives a crash is what the worker would read back."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bench.kafka_local_probe import Consumed
from controller.config.floor import load_floor_config
from streams.adapters.kafka.topics import TopicNames
from streams.codec import Output
from streams.scaleout.batch import Batch, decide
from streams.scaleout.local_apply import LocalApply, key_partition
from streams.scaleout.meter_ops import op_to_bytes, seed_op
from streams.scaleout.meters import MeterProcessor, meter_record_from_bytes, meter_record_to_bytes
from streams.scaleout.open_rounds import OpenRoundProcessor
from streams.scaleout.rounds import table_record_from_bytes, table_record_to_bytes
from streams.scaleout.store import Lane, PartitionState

NAMES = TopicNames("local")
PARTS = 3
Where = tuple[str, int]


class World:
    """The logs, the committed state (as the changelogs hold it) and what was produced."""

    def __init__(self, text: str, key: bytes | None, *, local: bool = True) -> None:
        config = load_floor_config(text, "floor.toml")
        meters = MeterProcessor(config, NAMES, key)
        self.lanes: dict[str, Lane[Any]] = {
            NAMES.table_events: Lane(
                "round",
                NAMES.table_events,
                NAMES.changelog("rounds"),
                OpenRoundProcessor(config, NAMES).process_open,  # as the worker runs it
                table_record_to_bytes,
                table_record_from_bytes,
            ),
            NAMES.meter_claims: Lane(
                "meter",
                NAMES.meter_claims,
                NAMES.changelog("meters"),
                meters.process,
                meter_record_to_bytes,
                meter_record_from_bytes,
            ),
        }
        self.local = LocalApply(meters, NAMES.meter_claims, PARTS) if local else None
        topics = (NAMES.table_events, NAMES.meter_claims)
        self.logs: dict[Where, list[tuple[bytes | None, bytes]]] = {
            (t, p): [] for t in topics for p in range(PARTS)
        }
        self.store: dict[Where, PartitionState[Any]] = {
            w: PartitionState(progress=0) for w in self.logs
        }
        self.produced: list[Output] = []
        for meter_id in sorted(config.meters):  # `jackpot kafka provision` writes the seeds
            op = seed_op(meter_id, "2026-12-01T09:00:00Z")
            self.append(NAMES.meter_claims, meter_id, op_to_bytes(op))

    def append(self, topic: str, key: str | None, value: bytes) -> None:
        """A record into its topic's log, placed by key as the producers place it."""
        key_bytes = None if key is None else key.encode("utf-8", "replace")
        part = 0 if key_bytes is None else key_partition(key_bytes, PARTS)
        self.logs[(topic, part)].append((key_bytes, value))

    def pending(self, where: Where, limit: int) -> list[Consumed]:
        """Up to ``limit`` records of a partition after its committed progress."""
        start = self.store[where].progress or 0
        log = self.logs[where][start : start + limit]
        return [Consumed(where, start + i, k, v) for i, (k, v) in enumerate(log)]

    def table_batch(self, owned: Iterable[int], limit: int) -> Batch:
        """This worker's batch: table events of every table partition, then the claims of the
        meter-claims partitions it owns (``owned``), decided with local apply."""
        mine = [(NAMES.meter_claims, p) for p in owned]
        tables = [(NAMES.table_events, p) for p in range(PARTS)]
        records = [m for w in tables for m in self.pending(w, limit)]
        records += [m for w in mine for m in self.pending(w, limit)]
        states = {w: self.store[w] for w in (*tables, *mine)}
        return decide(records, self.lanes, states, self.local)  # type: ignore[arg-type]

    def claims_batch(self, where: Where, limit: int) -> Batch:
        """Another worker's batch of one meter-claims partition (no table to apply locally)."""
        records = self.pending(where, limit)
        return decide(records, self.lanes, {where: self.store[where]})  # type: ignore[arg-type]

    def commit(self, batch: Batch) -> None:
        """The batch's transaction: outputs produced (claims into their log), state and
        progress stored through their bytes."""
        for outputs in batch.outputs.values():
            for out in outputs:
                if out.topic == NAMES.meter_claims:
                    self.append(out.topic, out.key, out.value)
                else:
                    self.produced.append(out)
        for where, records in batch.states.items():
            lane = self.lanes[where[0]]
            stored = self.store[where].records
            stored.update({k: lane.from_bytes(lane.to_bytes(r)) for k, r in records.items()})
        for where, offset in batch.progress.items():
            self.store[where].progress = offset

    def drain(self) -> None:
        """Every claim still in the topic applied by its partition's owner."""
        while any(self.pending((NAMES.meter_claims, p), 1) for p in range(PARTS)):
            for part in range(PARTS):
                self.commit(self.claims_batch((NAMES.meter_claims, part), 50))

    def meters(self) -> dict[str, Any]:
        """Each meter's state, by id."""
        found = {}
        for part in range(PARTS):
            for record in self.store[(NAMES.meter_claims, part)].records.values():
                found[record.meter.meter_id] = record.meter
        return found

    def one_by_one(self, limit: int) -> None:
        """The records `table_batch` would take (no meter-claims partition owned), each decided
        alone and its claims applied at once: the order local apply gives, by the topic."""
        tables = [(NAMES.table_events, p) for p in range(PARTS)]
        for message in [m for w in tables for m in self.pending(w, limit)]:
            self.commit(decide([message], self.lanes, self.store))  # type: ignore[list-item]
            self.drain()
