"""Meter claims applied in the transaction of the table event that made them, when this worker
owns the meter: one transaction from table event to meter event instead of two.

Through the topic, a claim costs a second hop: the round lane's transaction commits it to
``meter-claims``, the meter lane reads it ``read_committed`` and applies it in a transaction of its
own (two commits and a fetch on the way to a meter event, most of the money path's latency). When
the worker owns the claim's meter-claims partition (its state is in memory), `Shortcut` applies
the claim there and then with the same pure meter processor, in the table event's batch: the meter
events, the meter's new state record and the table's, and the table-events offsets all commit in
the one transaction, or none does. The claim is not written to the topic (only the worker reads
it; the meter event on ``<p>.events`` is the record of it).

**Order.** A meter applies each table's claims in the table's order (its watermark per table,
`streams.scaleout.meters`, skips anything at or below the last one applied). A claim is taken
here only when none of the same table's earlier claims on that meter can still be waiting in the
topic, or the watermark would later skip them as duplicates; so only when both hold:

1. the meter lane has read its partition of meter-claims past the partition's end as it was when
   this loop first decided a record of the table's partition (`fence`): whatever an earlier owner
   of the table (or an earlier run of this worker) sent through the topic is applied. Taken after
   the assignment, whose committed-offset fetch waits for that owner's open transaction;
2. every claim this loop itself sent through the topic for that (table, meter) is applied: the
   meter's watermark for the table is at or past the last one (`routed`).

Otherwise the claim goes through the topic as before. A fenced zombie's claims, in place or not,
are in its aborted transaction. The interleaving of different tables on a meter may differ from
the topic order, as it may between two runs anyway (docs/kafka.md, Parity).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from confluent_kafka import Consumer, KafkaException, TopicPartition

from streams.adapters.kafka.sink import partition_of
from streams.codec import Output
from streams.scaleout.meters import IN_PLACE, MeterRecord
from streams.scaleout.records import Processed, SourcePos
from streams.scaleout.store import Lane, PartitionState

Where = tuple[str, int]
WATERMARK_TIMEOUT_S = 5.0
RETRY_S = 1.0
LOG = logging.getLogger("jackpot.kafka.worker")


class Pending(Protocol):
    """The batch's state records not yet written, per source partition (`txloop.Batch`)."""

    states: dict[Where, dict[bytes, Any]]
    outcomes: dict[str, list[str]]


class Shortcut:
    """Applies claims of owned tables to owned meters in place (module docstring)."""

    def __init__(
        self,
        meter_lane: Lane[MeterRecord],
        table_topic: str,
        partitions: int,
        end_of: Callable[[int], int],
    ) -> None:
        """``end_of(p)``: the end (high watermark) of meter-claims partition ``p`` now
        (`claims_end`)."""
        self._lane, self._partitions, self._end_of = meter_lane, partitions, end_of
        self._table_topic = table_topic
        #: per table-events partition: the state it was computed for, and the fence per
        #: meter-claims partition (recomputed when the partition's state is a new one)
        self._fences: dict[int, tuple[object, dict[int, int]]] = {}
        #: (table, meter) -> the last (table seq, step index) this loop sent through the topic
        self._routed: dict[tuple[str, str], tuple[int, int]] = {}
        self._retry_at = 0.0  # after ends could not be read: not before then again

    def outputs(
        self,
        batch: Pending,
        owned: dict[Where, PartitionState[Any]],
        table_part: int,
        outputs: Iterable[Output],
        stamp: int,
    ) -> list[Output]:
        """The round lane's ``outputs`` for one table event, each claim taken here replaced (in
        place: settlement order) by the meter events it made; the others as they were."""
        result: list[Output] = []
        for out in outputs:
            if out.topic != self._lane.source:
                result.append(out)
                continue
            applied = self._apply(batch, owned, table_part, out, stamp)
            if applied is None:
                result.append(out)
            else:
                result.extend(applied)
        return result

    def _apply(
        self,
        batch: Pending,
        owned: dict[Where, PartitionState[Any]],
        table_part: int,
        out: Output,
        stamp: int,
    ) -> tuple[Output, ...] | None:
        """The meter's outputs if the claim ``out`` is applied here; None: send it."""
        op = json.loads(out.value)
        pair, claim = (str(op["table_id"]), out.key), (int(op["table_seq"]), int(op["index"]))
        part = partition_of(out.key.encode(), self._partitions)
        where = (self._lane.source, part)
        state = owned.get(where)
        key = out.key.encode()
        pending = batch.states.get(where, {})
        record: MeterRecord | None = pending.get(key)
        if record is None and state is not None:
            record = state.get(key)
        caught_up = state is not None and self._caught_up(owned, table_part, part, state)
        if not caught_up or not self._applied_routed(record, pair):
            self._routed[pair] = claim
            return None
        result: Processed[MeterRecord] = self._lane.process(
            record, out.key, out.value, SourcePos(self._lane.source, part, IN_PLACE, stamp)
        )
        batch.outcomes.setdefault(self._lane.name, []).append(result.outcome)
        if result.record is not None:
            batch.states.setdefault(where, {})[key] = result.record
        return result.outputs

    def _caught_up(
        self,
        owned: dict[Where, PartitionState[Any]],
        table_part: int,
        part: int,
        state: PartitionState[Any],
    ) -> bool:
        """Whether the meter lane read meter-claims partition ``part`` past its fence for
        table partition ``table_part`` (condition 1)."""
        fence = self.fence(owned, table_part).get(part)
        return fence is not None and (state.progress or 0) >= fence

    def _applied_routed(self, record: MeterRecord | None, pair: tuple[str, str]) -> bool:
        """Whether the meter applied the last claim this loop sent for (table, meter) through
        the topic, if it sent any (condition 2)."""
        routed = self._routed.get(pair)
        if routed is None:
            return True
        mark = None if record is None else record.marks.get(pair[0])
        return mark is not None and mark >= routed

    def fence(self, owned: dict[Where, PartitionState[Any]], table_part: int) -> dict[int, int]:
        """Per meter-claims partition, its end when this loop first decided a claim of table
        partition ``table_part`` since it was (re)assigned; {} for a partition not owned. The
        ends are asked once for every table partition assigned since the last time (an
        assignment brings several at once)."""
        state = owned.get((self._table_topic, table_part))
        if state is None:
            return {}
        known = self._fences.get(table_part)
        if known is not None and known[0] is state:
            return known[1]
        if time.monotonic() < self._retry_at:
            return {}
        try:
            ends = {p: self._end_of(p) for p in range(self._partitions)}
        except KafkaException as exc:  # the broker away: through the topic until it answers
            LOG.warning("meter-claims ends not readable (%s): claims go through the topic", exc)
            self._retry_at = time.monotonic() + RETRY_S
            return {}
        for (topic, part), other in owned.items():
            seen = self._fences.get(part)
            if topic == self._table_topic and (seen is None or seen[0] is not other):
                self._fences[part] = (other, ends)
        return ends


def claims_end(consumer: Consumer, topic: str) -> Callable[[int], int]:
    """`Shortcut`'s ``end_of``: a partition's high watermark asked of the broker (not cached)
    through ``consumer``, a reader of its own: on the loop's consumer the request waits behind
    a fetch the broker holds (seen: 2.5 s for the six partitions)."""

    def end_of(part: int) -> int:
        tp = TopicPartition(topic, part)
        return int(consumer.get_watermark_offsets(tp, WATERMARK_TIMEOUT_S, cached=False)[1])

    return end_of
