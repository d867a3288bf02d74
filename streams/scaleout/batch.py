"""One batch of the money path's loop (`streams.scaleout.txloop`): its records decided with
their lanes' pure processors against the in-memory state and the batch's own earlier results.
Nothing is written here: the loop produces a decided batch in one transaction."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from confluent_kafka import Consumer, KafkaError, KafkaException, Message

from streams.adapters.kafka.phases import BatchPhases
from streams.adapters.kafka.read import as_bytes
from streams.codec import Output
from streams.scaleout.open_meter import OpenMeter
from streams.scaleout.open_table import OpenTable
from streams.scaleout.records import Processed, source_pos
from streams.scaleout.store import Lane, PartitionState

LOG = logging.getLogger("jackpot.kafka.worker")
Where = tuple[str, int]
#: How long one wait for more records lasts while the previous batch commits (`more`): the
#: batch goes on at most this long after that commit returned.
MORE_POLL_S = 0.001
#: Records decided between two offers of the GIL (`decide`). The previous batch's offsets and
#: commit run in a thread of their own (`streams.adapters.kafka.transactions.Committing`) and
#: could not finish while the loop decided: a transactional loop's offsets, measured with
#: Python work in the main thread for 10 ms, took 10.7 ms against 1.5 ms with the GIL offered
#: in it (the switch interval, 5 or 0.5 ms, changed nothing), and the worker waited longer for
#: its commits than it decided (docs/kafka.md, "Speed", issue 13). ~32 records is ~0.6 ms of
#: deciding. The offer is ``os.sched_yield()`` (the GIL released, the CPU kept unless another
#: thread is runnable: ~1 µs), not ``time.sleep(0)``, which sleeps on a timer until the next
#: tick: ~85 µs of wall time and ~23 µs of CPU each on this host, ~15 a full batch, ~2.5 µs of
#: the loop's CPU an event at full throughput (issue 13, branch ``k13-s18``).
YIELD_EVERY = 32


class Applier(Protocol):
    """What `decide` calls of `streams.scaleout.local_apply.LocalApply`: a protocol, not the
    class, so that this module compiled (`streams.compiled`) takes any implementation, as the
    differential tests pass main's (a compiled parameter of a native class checks its type)."""

    def begin(self, states: Mapping[Where, PartitionState[Any]]) -> None: ...

    def applied(
        self,
        result: Processed[Any],
        batch_states: dict[Where, dict[bytes, Any]],
        progress: dict[Where, int],
        outcomes: list[str],
        states: Mapping[Where, PartitionState[Any]],
    ) -> Processed[Any]: ...


@dataclass(slots=True)
class Batch:
    """One decided batch, not yet committed."""

    started: float
    states: dict[Where, dict[bytes, Any]] = field(default_factory=dict)
    progress: dict[Where, int] = field(default_factory=dict)
    outputs: dict[str, list[Output]] = field(default_factory=dict)
    outcomes: dict[str, list[str]] = field(default_factory=dict)
    records: int = 0
    later: list[Output] = field(default_factory=list)  # sent once committed (`SideWriter`)
    phases: BatchPhases | None = None  # stamped only when traced (`PhaseLog`)


def usable(message: Message, owned: Mapping[Where, Any]) -> bool:
    """A record of an owned partition (errors logged; fatal ones raise)."""
    error = message.error()
    if error is not None:
        if error.fatal():
            raise KafkaException(error)
        if error.code() != KafkaError._PARTITION_EOF:
            LOG.warning("consumer: %s", error.str())
        return False
    return (message.topic() or "", message.partition() or 0) in owned


def decide(
    records: list[Message],
    lanes: Mapping[str, Lane[Any]],
    states: Mapping[Where, PartitionState[Any]],
    local: Applier | None = None,
    into: Batch | None = None,
) -> Batch:
    """Each record through its lane's processor (records of owned partitions only), in order;
    with ``local``, an accepted table event's claims on owned meters applied in the batch
    (`streams.scaleout.local_apply`). ``into``: a batch decided so far, which these records
    (coming after its own) join, decided against its records as against the state.

    What a record's partition needs (its lane, state, the batch's records and lists) is looked
    up when the partition changes, not per record (a batch comes partition by partition): the
    batch's dicts see the same insertions in the same order, so the transaction writes as ever.
    After each record a lane with a walk (`Lane.walk`, `streams.scaleout.grow`) decides the
    records that follow it natively, as many as it can, and the loop goes on from the first it
    handed back.
    """
    batch = Batch(time.monotonic()) if into is None else into
    batch.records += len(records)
    if local is not None:
        local.begin(states)  # its view of what other tables left in the topic follows `states`
    applied: list[str] = []  # the meter lane's outcomes of the claims applied locally
    where: Where | None = None
    since = 0  # records decided since the GIL was last offered (`YIELD_EVERY`)
    index, count = 0, len(records)
    while index < count:
        message = records[index]
        index += 1
        since += 1
        if since >= YIELD_EVERY:  # (a walk may have decided up to YIELD_EVERY since)
            since = 0
            os.sched_yield()  # the GIL offered to the thread committing the previous batch
        topic, part, offset = message.topic() or "", message.partition() or 0, message.offset() or 0
        if where is None or where[0] != topic or where[1] != part:
            where = (topic, part)
            lane, state, pending, outcomes, outputs = _lookups(batch, lanes, states, where)
            process, round_local = lane.process, local is not None and lane.name == "round"
            walk, lists = lane.walk, (outcomes, outputs)
        key = message.key()
        key_bytes = key if key is None or type(key) is bytes else as_bytes(key)
        record = pending[key_bytes] if key_bytes in pending else state.get(key_bytes)
        if type(record) is OpenMeter and key_bytes is not None:  # a meter local apply opened,
            record = pending[key_bytes] = record.seal()  # read by its lane: sealed first
        text_key = None if key_bytes is None else key_bytes.decode("utf-8", "replace")
        pos = source_pos(topic, part, offset, message.timestamp()[1])
        value = message.value()
        result = process(record, text_key, value if type(value) is bytes else as_bytes(value), pos)
        if round_local and for_local(result):
            result = local.applied(result, batch.states, batch.progress, applied, states)  # type: ignore[union-attr]
        outcomes.append(result.outcome)
        outputs.extend(result.outputs)
        if result.record is not None and key_bytes is not None and key_bytes[:1] != b"\x00":
            pending[key_bytes] = result.record  # (a reserved key, `is_reserved`, never)
        batch.progress[where] = offset + 1
        if walk is not None and index < count:  # the grown inputs after it, natively
            done = walk(records, index, index + YIELD_EVERY - since, topic, part, pending, lists,
                        batch.progress, where)  # fmt: skip
            since += done - index
            index = done
    if applied:
        batch.outcomes.setdefault("meter", []).extend(applied)
    _seal(batch.states.values())  # the round lane's tables; with ``local``, meters too
    return batch


def for_local(result: Processed[Any]) -> bool:
    """Whether local apply (`streams.scaleout.local_apply.LocalApply.applied`) has anything to
    do with the round lane's ``result``: an accepted table event, unless its record was grown
    open with only the event and its liveness record as outputs (`streams.scaleout.open_rounds`:
    a wager, a decision, an opening, a lock of no linked wager or a settlement of no award: no
    claim, ``owed`` as it was), which `applied` would hand back as it is (~1.4k instructions a
    table event: most are such). A lock or settlement decided open with claims goes through."""
    if result.outcome != "accepted":
        return False
    return type(result.record) is not OpenTable or len(result.outputs) > 2


def _seal(batch_states: Iterable[dict[bytes, Any]]) -> None:
    """Each record left open frozen: a table's the round lane grew (`streams.scaleout.
    open_table`), a meter's local apply grew (`streams.scaleout.open_meter`). What the loop
    encodes, stores and decides from next is a `TableRecord` or a `MeterRecord`, as the
    reference's."""
    for pending in batch_states:
        for key, record in pending.items():
            kind = type(record)
            if kind is OpenTable or kind is OpenMeter:
                pending[key] = record.seal()


def _lookups(
    batch: Batch,
    lanes: Mapping[str, Lane[Any]],
    states: Mapping[Where, PartitionState[Any]],
    where: Where,
) -> tuple[Lane[Any], PartitionState[Any], dict[bytes, Any], list[str], list[Output]]:
    """A partition's lane and state, and the batch's records, outcomes and outputs it adds to
    (created in the batch, in the order main's per-record lookups created them)."""
    lane = lanes[where[0]]
    pending = batch.states.setdefault(where, {})
    outcomes = batch.outcomes.setdefault(lane.name, [])
    return lane, states[where], pending, outcomes, batch.outputs.setdefault(lane.name, [])


def take(consumer: Consumer, size: int, timeout: float, until: float) -> list[Message]:
    """The next batch: nothing if no record comes within ``timeout``; else the first record as
    soon as it is there and whatever else is queued (up to ``size``), waiting for more only
    until ``until`` (monotonic: the previous transaction's start plus ``--commit-interval``).

    ``consume(n, t)`` alone waits all of ``t`` unless ``n`` records came (librdkafka returns
    early only for a full batch), adding up to ``t`` to each lane's latency even when the input
    is drained: `poll` returns at the first record instead. A batch then holds what came while
    the previous one was decided and committed, so its size follows the load: small when it is
    light (latency), whole batches from a backlog."""
    first = consumer.poll(timeout)
    if first is None:
        return []
    if size <= 1:
        return [first]
    return [first, *consumer.consume(size - 1, max(0.0, until - time.monotonic()))]


def more(
    consumer: Consumer,
    committing: Callable[[], bool],
    batch: Batch,
    phases: BatchPhases | None,
    *,
    size: int,
    lanes: Mapping[str, Lane[Any]],
    states: Mapping[Where, PartitionState[Any]],
    local: Applier | None,
) -> bool:
    """The records that come while ``committing()`` (the previous batch's commit in flight)
    decided into ``batch``, up to ``size`` records: they would otherwise wait for the next batch,
    behind this one's whole commit (the tail of a round's latency: docs/kafka.md "Speed").
    False, the batch to be dropped, if a rebalance inside ``consume`` took one of the batch's
    partitions or gave it back anew (its state restored): a batch holds only records of
    partitions owned all along."""
    held = {where: states[where] for where in batch.progress}
    while committing() and batch.records < size:
        messages = consumer.consume(size - batch.records, MORE_POLL_S)
        if any(states.get(where) is not state for where, state in held.items()):
            return False
        records = [m for m in messages if usable(m, states)]
        if records:
            if phases is not None:
                phases.took(records, at=phases.taken)
            decide(records, lanes, states, local, into=batch)
            held.update((where, states[where]) for where in batch.progress)
    return True
