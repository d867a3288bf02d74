"""A money transaction's records onto the transactional producer (`streams.scaleout.txloop`):
the outputs with their dedupe ids, and each touched key's state record and each source
partition's progress mark on the lane's changelog, in the partition of the source partition (so
a partition's state is restored from one changelog partition: `streams.scaleout.store`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import Producer

from streams.codec import DEDUPE_HEADER, Output
from streams.scaleout.batch import Batch
from streams.scaleout.store import Lane


class Writes:
    """Produce calls for one producer; ``report`` (a traced batch's delivery callback, or None)
    is set by the loop per transaction."""

    def __init__(self, producer: Producer, lanes: Mapping[str, Lane[Any]]) -> None:
        self._producer, self._lanes = producer, lanes
        self.report: Callable[[Any, Any], None] | None = None

    def outputs(self, outputs: list[Output]) -> None:
        """The outputs, each with its dedupe id in a header: `_send`'s calls, made here (a
        batch's hundreds of outputs each paid a call and a keyword dict) unless the local queue
        is full, when `_send` waits for room as ever."""
        produce, report = self._producer.produce, self.report
        for out in outputs:
            headers: list[tuple[str, str | bytes | None]] = [
                (DEDUPE_HEADER, out.dedupe_id.encode())
            ]
            topic, key, value = out.topic, out.key.encode(), out.value
            try:
                if report is None:
                    produce(topic, value, key, -1, headers=headers)
                else:
                    produce(topic, value, key, -1, headers=headers, on_delivery=report)
            except BufferError:  # as `_send`: let deliveries drain the queue, then again
                self._producer.poll(0.05)
                self._send(topic, key, value, headers=headers)

    def state(self, batch: Batch) -> None:
        """Each touched key's record and each partition's progress, to the changelog partition
        of the source partition."""
        for (topic, part), records in batch.states.items():
            lane = self._lanes[topic]
            for key, record in records.items():
                self._send(lane.changelog, lane.stored(key), lane.to_bytes(record), part)
        for (topic, part), offset in batch.progress.items():
            lane = self._lanes[topic]
            self._send(lane.changelog, lane.mark(part), b"%d" % offset, part)

    def _send(self, topic: str, key: bytes, value: bytes, partition: int = -1, **kw: Any) -> None:
        if self.report is not None:
            kw["on_delivery"] = self.report
        while True:
            try:
                self._producer.produce(topic, value, key, partition, **kw)
                return
            except BufferError:  # the local queue is full: let deliveries drain it
                self._producer.poll(0.05)
