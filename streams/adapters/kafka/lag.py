"""Whether a consumer group left committed records behind: the read side's stall probe.

A caught-up partition of a transactional topic ends with a commit marker, which a
``read_committed`` consumer never delivers, so a group's committed offset stays below the high
watermark on every quiet partition and the two offsets cannot tell a stall from a quiet floor.
Reading from the committed offset as a ``read_committed`` consumer can: it is given a record only
if the group's own consumer should have been given it too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.read import read_partition
from streams.adapters.kafka.security import client_settings

logger = logging.getLogger(__name__)


def waiting_partitions(
    bootstrap: str, group: str, topic: str, partitions: Iterable[int], timeout: float = 5.0
) -> dict[int, tuple[int, int]]:
    """The partitions with a committed record at or after ``group``'s committed offset (from the
    beginning where it has none): partition -> (committed offset, -1 for none; the first such
    record's offset). The probe joins no group (it never subscribes) and commits nothing. On a
    broker error or a read that times out it answers {} (no evidence of a stall) and logs why."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            **client_settings(),
            "group.id": group,  # only to read the group's committed offsets (OffsetFetch)
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "isolation.level": "read_committed",
            "log_level": 3,
        }
    )
    try:
        asked = [TopicPartition(topic, p) for p in sorted(partitions)]
        committed = consumer.committed(asked, timeout=timeout) if asked else []
        firsts = {tp.partition: (tp.offset, _first(consumer, tp, timeout)) for tp in committed}
        return {p: (max(at, -1), first) for p, (at, first) in firsts.items() if first is not None}
    except (KafkaException, StoreUnavailable) as exc:
        logger.warning("stall probe of %s for group %s failed: %s", topic, group, exc)
        return {}
    finally:
        consumer.close()


def _first(consumer: Consumer, committed: TopicPartition, timeout: float) -> int | None:
    """The offset of the first committed record at or after ``committed.offset`` (negative:
    none committed, so from the earliest); None if there is none."""
    start = committed.offset if committed.offset >= 0 else None
    records = read_partition(consumer, committed.topic, committed.partition, start, timeout)
    first = next(records, None)
    return None if first is None else first.offset()


CommittedRecord = tuple[int, bytes | None]
"""A committed record read from a partition: its offset and its value."""


class CommittedRecords:
    """The committed records in a range of a partition: one ``read_committed`` consumer that
    never joins its group (it never subscribes or commits), kept for the process's life: the
    read side's check of the offsets faust did not deliver (`streams.scaleout.readside.gaps`),
    which applies what it finds there. The broker answers a fetch at once
    (``fetch.wait.max.ms`` 10: a range ends at a record that is there), ~1 ms a range on a
    local broker."""

    def __init__(self, bootstrap: str, group: str, timeout: float = 2.0) -> None:
        #: held by a read and by `close`: librdkafka's consumer is not to be closed while another
        #: thread polls it (a read in a worker thread can outlive the loop that asked for it)
        self.lock = threading.Lock()
        self.closed = False
        self.consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                **client_settings(),
                # the read side's own group, which its role may use (another group would be
                # refused the coordinator lookup): assigned, never joined nor committed
                "group.id": group,
                "enable.auto.commit": False,
                "enable.partition.eof": True,
                "isolation.level": "read_committed",
                "fetch.wait.max.ms": 10,
                "log_level": 3,
            }
        )
        self.timeout = timeout

    def __call__(self, topic: str, partition: int, start: int, stop: int) -> list[CommittedRecord]:
        """The committed records with ``start <= offset < stop``, in order; StoreUnavailable if
        the broker does not answer within the timeout, reading fails or the reader is closed."""
        with self.lock:
            if self.closed:
                msg = f"{topic}[{partition}]: the hole reader is closed"
                raise StoreUnavailable(msg)
            return self._read(topic, partition, start, stop)

    def _read(self, topic: str, partition: int, start: int, stop: int) -> list[CommittedRecord]:
        self.consumer.assign([TopicPartition(topic, partition, start)])
        found: list[CommittedRecord] = []
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            message = self.consumer.poll(0.1)
            if message is None:
                continue
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    return found
                msg = f"{topic}[{partition}] from {start}: {error}"
                raise StoreUnavailable(msg)
            offset = message.offset()
            if offset is None or offset >= stop:
                return found
            found.append((offset, message.value()))
            deadline = time.monotonic() + self.timeout  # a long range: each fetch answers
        msg = f"{topic}[{partition}] from {start}: no answer within {self.timeout:.0f} s"
        raise StoreUnavailable(msg)

    def close(self) -> None:
        """Close the consumer, unless a read is still in flight (the process is leaving then:
        the read is abandoned with it, not waited for)."""
        if not self.lock.acquire(blocking=False):
            return
        try:
            if not self.closed:
                self.closed = True
                self.consumer.close()
        finally:
            self.lock.release()
