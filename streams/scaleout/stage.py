"""One processor bound to its faust table: the batch protocol of `streams.scaleout.worker`.

Kept apart from the app wiring so each reads in one sitting; it imports faust only for the
``TP`` (topic, partition) type the consumer's commit takes.

**Pipelining (optional).** A batch is *decided* (gap repair, the pure processor, its outputs
queued on the producer) and then *finished* by a task of its own: wait for its outputs'
acknowledgements, store its state and progress and wait for the changelog, commit, acknowledge
its events. Each finish first waits for the previous batch's finish, so stores and commits happen
in batch order, and always after the batch's own outputs are acknowledged: the guarantees of
`streams.scaleout.worker` hold at any depth. With a depth of 2 the next batch is decided while the
broker acknowledges the previous one, reading that batch's state records from
`Stage._unstored` (the table has not got them yet). The default depth is 1 (each batch finished
before the next is taken) because on the benchmark host depth 2 lost: batches got smaller and
the process spent ~20% more CPU per event, mostly in faust's fetcher, while the worker was
CPU-bound rather than waiting on the broker (bench/PROPOSALS.md, "Kafka"). Raise it with
``JACKPOT_KAFKA_PIPELINE_DEPTH=2`` where the broker's round trips, not the CPU, are the limit.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, NoReturn, TypeVar

import faust
from faust.types import TP

from streams.adapters.kafka.read import read_range
from streams.adapters.kafka.settings import KILL_AFTER_OUTPUTS_ENV
from streams.adapters.kafka.sink import Delivery, OutputSink
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.codec import Output
from streams.scaleout.batch import (
    Incoming,
    find_gaps,
    from_confluent,
    from_faust,
    is_reserved,
    progress_key,
)
from streams.scaleout.records import Processed, SourcePos, coalesced

LOG = logging.getLogger("jackpot.kafka.worker")
R = TypeVar("R")
#: Unfinished batches at most (1: each batch finished before the next is decided); the
#: environment variable overrides it (bench and tuning; see bench/PROPOSALS.md, "Kafka").
PIPELINE_DEPTH_ENV = "JACKPOT_KAFKA_PIPELINE_DEPTH"
PIPELINE_DEPTH = 1


@dataclass(slots=True)
class Decided(Generic[R]):
    """One decided batch on its way to being finished."""

    number: int
    events: Sequence[Any]
    topic: str
    states: dict[bytes, tuple[int, R]]  # key: (source partition, record)
    progress: dict[int, int]  # source partition: next offset
    outcomes: list[str]
    outputs: list[Output]
    delivery: Delivery
    started: float


class Stage(Generic[R]):
    """One processor bound to its faust table: the batch protocol of the module docstring."""

    def __init__(
        self,
        *,
        name: str,
        topic: str,
        app: faust.App,
        table: Any,
        process: Callable[[R | None, str | None, bytes, SourcePos], Processed[R]],
        codec: tuple[Callable[[R], bytes], Callable[[bytes], R]],
        sink: OutputSink,
        metrics: WorkerMetrics,
        bootstrap: str,
        depth: int | None = None,
    ) -> None:
        self.name, self._app, self._table, self._process = name, app, table, process
        self._topic = topic
        depth = depth or int(os.environ.get(PIPELINE_DEPTH_ENV) or PIPELINE_DEPTH)
        self._bootstrap, self._depth = bootstrap, max(1, depth)
        self._to_bytes, self._from_bytes = codec
        self._sink, self._metrics = sink, metrics
        self._batches = 0
        self._kill_after = int(os.environ.get(KILL_AFTER_OUTPUTS_ENV) or 0)
        # decided, not yet stored: key -> (batch number, record); partition -> (number, next)
        self._unstored: dict[bytes, tuple[int, R]] = {}
        self._unstored_progress: dict[int, tuple[int, int]] = {}

    def _load(self, key: bytes | None) -> R | None:
        """The key's state record: this stage's own decided-but-unstored one first, then the
        table's; None for a reserved key (a rogue record keyed like a progress mark must be
        refused by the processor, not decoded as state and crash the batch)."""
        if key is None or is_reserved(key):
            return None
        if key in self._unstored:
            return self._unstored[key][1]
        stored = self._table.data.get(key)
        return None if stored is None else self._from_bytes(stored)

    def _stored_progress(self, partition: int) -> int | None:
        unstored = self._unstored_progress.get(partition)  # .get: `lag` runs in another thread
        if unstored is not None:
            return unstored[1]
        stored = self._table.data.get(progress_key(partition))
        return None if stored is None else int(stored)

    def lag(self) -> list[tuple[str, int, int]]:
        """(topic, partition, records after the decided progress) for each assigned source
        partition whose high watermark the consumer knows; read by the metrics server's thread
        at scrape time. Before the first batch of a partition the whole partition counts."""
        consumer: Any = self._app.consumer
        rows = []
        try:
            for tp in consumer.assignment():
                high = consumer.highwater(tp) if tp.topic == self._topic else None
                if high is not None:
                    done = self._stored_progress(tp.partition) or 0
                    rows.append((tp.topic, tp.partition, max(0, high - done)))
        except Exception:
            LOG.debug("%s: lag not readable now", self.name, exc_info=True)
            return []
        return rows

    async def decide(self, events: Sequence[Any]) -> Decided[R]:
        """Repair gaps, decide every record and queue the outputs (not yet acknowledged)."""
        started = time.monotonic()
        records, progress = await self._fill_gaps([from_faust(e) for e in events])
        pending: dict[bytes, tuple[int, R]] = {}
        outcomes: list[str] = []
        outputs: list[Output] = []
        for incoming in records:
            key = incoming.key
            record = pending[key][1] if key in pending else self._load(key)
            text_key = None if key is None else key.decode("utf-8", "replace")
            result = self._process(record, text_key, incoming.value, incoming.pos)
            outcomes.append(result.outcome)
            outputs.extend(result.outputs)
            if result.record is not None and key is not None and not is_reserved(key):
                pending[key] = (incoming.pos.partition, result.record)
        outputs = coalesced(outputs)  # e.g. one liveness record per table per batch
        self._batches += 1
        number = self._batches
        delivery = self._sink.produce(outputs)
        self._unstored.update((k, (number, r)) for k, (_, r) in pending.items())
        self._unstored_progress.update((p, (number, o)) for p, o in progress.items())
        topic = records[0].pos.topic
        return Decided(
            number, events, topic, pending, progress, outcomes, outputs, delivery, started
        )

    async def finish(self, batch: Decided[R], previous: asyncio.Future[None] | None) -> None:
        """After ``previous`` finished and this batch's outputs are acknowledged: store its
        state, then its progress, commit, acknowledge its events (never in another order)."""
        if previous is not None:
            await previous
        await self._sink.wait(batch.delivery)
        if batch.number == self._kill_after:  # fault injection: outputs durable, state not
            os.kill(os.getpid(), signal.SIGKILL)
        states = {k: (p, self._to_bytes(r)) for k, (p, r) in batch.states.items()}
        await self._store(batch.topic, states)
        progress = batch.progress
        await self._store(
            batch.topic, {progress_key(p): (p, b"%d" % o) for p, o in progress.items()}
        )
        await self._commit(batch.topic, progress)
        self._forget(batch.number)
        seconds = time.monotonic() - batch.started
        self._metrics.record(self.name, batch.outcomes, batch.outputs, seconds)

    def _forget(self, number: int) -> None:
        """Drop what batch ``number`` stored from the unstored view (unless a later batch
        changed it since)."""
        for key in [k for k, (n, _) in self._unstored.items() if n == number]:
            del self._unstored[key]
        for partition in [p for p, (n, _) in self._unstored_progress.items() if n == number]:
            del self._unstored_progress[partition]

    async def _fill_gaps(self, records: list[Incoming]) -> tuple[list[Incoming], dict[int, int]]:
        """The batch with any records faust skipped (see `streams.scaleout.batch`) put back, and
        the next expected offset per partition (never lower than the stored one)."""
        expected: dict[int, int | None] = {}
        for record in records:
            partition = record.pos.partition
            if partition not in expected:
                expected[partition] = self._stored_progress(partition)
        gaps = find_gaps(records, expected)
        for index, gap in reversed(gaps):
            missing = await asyncio.to_thread(
                functools.partial(read_range, start=gap.start, stop=gap.stop),
                self._bootstrap,
                gap.topic,
                gap.partition,
            )
            LOG.error(
                "%s: %d record(s) skipped by the consumer, repaired: %s",
                self.name,
                len(missing),
                gap,
            )
            self._metrics.gap_records.labels(self.name).inc(len(missing))
            records[index:index] = [from_confluent(m) for m in missing]
        return records, {p: o for p, o in expected.items() if o is not None}

    async def _commit(self, topic: str, progress: dict[int, int]) -> None:
        """Commit the stored progress ourselves, through faust's consumer.

        faust commits only offsets below the first record it never acknowledged, and it can lose
        a record without ever acknowledging it (`streams.scaleout.batch`): its commits would stall
        for good. Our progress is durable state, so committing it is safe; faust's own commits
        (from our acknowledgements) never go past it.
        """
        offsets = {TP(topic, partition): offset for partition, offset in progress.items()}
        consumer: Any = self._app.consumer  # the concrete consumer; ConsumerT lacks the method
        await consumer._commit_offsets(offsets)

    async def _store(self, topic: str, values: dict[bytes, tuple[int, bytes]]) -> None:
        """Write state records and wait for their changelog acknowledgements."""
        assigned = self._app.consumer.assignment()
        futures = []
        for key, (partition, value) in values.items():
            if TP(topic, partition) not in assigned:  # revoked mid-batch: the new owner redoes it
                self._metrics.stale_writes.labels(self.name).inc()
                continue
            self._table.data[key] = value
            futures.append(self._table.send_changelog(partition, key, value))
        await asyncio.gather(*futures)

    async def consume(self, stream: Any, batch: int) -> None:
        """The agent body: events are acknowledged by hand, only after their batch is stored.

        Not ``take_events``: its ``finally`` acknowledges the whole batch on any way out of the
        loop, a failed batch included. A batch is what faust has waiting in the agent's channel
        (up to ``batch``). At depth 1 the agent's own task decides and finishes each batch, as
        before pipelining existed (faust fills the channel meanwhile, so batches are large);
        deeper, see `_pipelined`.
        """
        manual = stream.noack()
        if self._depth > 1:
            await self._pipelined(manual, batch)
            return
        pending: list[Any] = []
        async for event in manual.events():
            pending.append(event)
            if len(pending) < batch and not manual.channel.empty():
                continue
            try:
                await self.finish(await self.decide(pending), None)
            except Exception:
                self._die("batch")
            for done in pending:
                await manual.ack(done)
            pending = []

    async def _pipelined(self, manual: Any, batch: int) -> None:
        """Room in the pipeline first, then the batch, so events gather in faust's buffers
        while earlier batches are busy rather than being pulled early into small batches."""
        events = manual.events().__aiter__()
        unfinished: collections.deque[asyncio.Task[None]] = collections.deque()
        try:
            while True:
                while len(unfinished) >= self._depth:
                    await unfinished.popleft()
                pending = [await events.__anext__()]
                while len(pending) < batch and not manual.channel.empty():
                    pending.append(await events.__anext__())
                try:
                    decided = await self.decide(pending)
                except Exception:
                    self._die("decide")
                previous = unfinished[-1] if unfinished else None
                finishing = self._finish_and_ack(manual, decided, previous)
                unfinished.append(asyncio.create_task(finishing))
        except StopAsyncIteration:  # the stream ended (the app is stopping)
            return
        finally:  # stopped: unfinished batches are redelivered
            for task in unfinished:
                task.cancel()

    async def _finish_and_ack(
        self, manual: Any, batch: Decided[R], previous: asyncio.Future[None] | None
    ) -> None:
        try:
            await self.finish(batch, previous)
        except Exception:
            self._die("finish")
        for done in batch.events:
            await manual.ack(done)

    def _die(self, step: str) -> NoReturn:
        """faust would restart the agent past the unacknowledged batch, with state that lacks
        it: end the process instead; the restart redelivers from the committed offset."""
        LOG.exception(
            "%s batch failed (%s); exiting, nothing past it is acknowledged", self.name, step
        )
        os._exit(70)
