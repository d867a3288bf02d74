"""One processor bound to its faust table: the batch protocol of `streams.kafka_worker`.

Kept apart from the app wiring so each reads in one sitting; it imports faust only for the
``TP`` (topic, partition) type the consumer's commit takes.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

import faust
from faust.types import TP

from streams.kafka_batch import (
    Incoming,
    find_gaps,
    from_confluent,
    from_faust,
    is_reserved,
    progress_key,
)
from streams.kafka_codec import Output, Processed, SourcePos
from streams.kafka_metrics import WorkerMetrics
from streams.kafka_read import read_range
from streams.kafka_settings import KILL_AFTER_OUTPUTS_ENV
from streams.kafka_sink import OutputSink

LOG = logging.getLogger("jackpot.kafka.worker")
R = TypeVar("R")


class Stage(Generic[R]):
    """One processor bound to its faust table: the batch protocol of the module docstring."""

    def __init__(
        self,
        *,
        name: str,
        app: faust.App,
        table: Any,
        process: Callable[[R | None, str | None, bytes, SourcePos], Processed[R]],
        codec: tuple[Callable[[R], bytes], Callable[[bytes], R]],
        sink: OutputSink,
        metrics: WorkerMetrics,
        bootstrap: str,
    ) -> None:
        self.name, self._app, self._table, self._process = name, app, table, process
        self._bootstrap = bootstrap
        self._to_bytes, self._from_bytes = codec
        self._sink, self._metrics = sink, metrics
        self._batches = 0
        self._kill_after = int(os.environ.get(KILL_AFTER_OUTPUTS_ENV) or 0)

    def _load(self, key: bytes | None) -> R | None:
        """The key's state record; None for a reserved key (a rogue record keyed like a progress
        mark must be refused by the processor, not decoded as state and crash the batch)."""
        stored = None if key is None or is_reserved(key) else self._table.data.get(key)
        return None if stored is None else self._from_bytes(stored)

    async def run_batch(self, events: Sequence[Any]) -> None:
        """Decide, produce and await, then store and await (never the other way round)."""
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
        self._sink.produce(outputs)
        await self._sink.flush()
        self._batches += 1
        if self._batches == self._kill_after:  # fault injection: outputs durable, state not
            os.kill(os.getpid(), signal.SIGKILL)
        topic = records[0].pos.topic
        await self._store(topic, {k: (p, self._to_bytes(r)) for k, (p, r) in pending.items()})
        await self._store(topic, {progress_key(p): (p, b"%d" % o) for p, o in progress.items()})
        await self._commit(topic, progress)
        self._metrics.record(self.name, outcomes, outputs)
        self._metrics.batch_seconds.labels(self.name).observe(time.monotonic() - started)

    async def _fill_gaps(self, records: list[Incoming]) -> tuple[list[Incoming], dict[int, int]]:
        """The batch with any records faust skipped (see `streams.kafka_batch`) put back, and
        the next expected offset per partition (never lower than the stored one)."""
        expected: dict[int, int | None] = {}
        for record in records:
            stored = self._table.data.get(progress_key(record.pos.partition))
            expected.setdefault(record.pos.partition, None if stored is None else int(stored))
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
        a record without ever acknowledging it (`streams.kafka_batch`): its commits would stall
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
        loop, a failed batch included. A batch ends when it is full or when no further event is
        waiting in the agent's queue.
        """
        manual = stream.noack()
        pending: list[Any] = []
        async for event in manual.events():
            pending.append(event)
            if len(pending) < batch and not manual.channel.empty():
                continue
            try:
                await self.run_batch(pending)
            except Exception:
                # faust would restart the agent past the unacknowledged batch, with state that
                # lacks it: die instead; the restart redelivers from the committed offset
                LOG.exception(
                    "%s batch failed; exiting, nothing past it is acknowledged", self.name
                )
                os._exit(70)
            for done in pending:
                await manual.ack(done)
            pending = []
