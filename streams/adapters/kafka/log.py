"""`streams.ports.EventLog` on one Kafka topic: the embedded engine's durable log, on a broker.

The port promises a *total* append order across keys (`tests/streams/adapters/log_contract.py`
reads back
``a0 a1 a2 b0 b1`` across two keys), so this adapter uses a **single-partition** topic; the
scale-out topics (`streams.adapters.kafka.topics`) are multi-partition and ordered per key only.

- **Atomic batches**: one Kafka transaction per `append` (``transactional.id``); readers use
  ``isolation.level=read_committed``, so a batch is seen whole or not at all.
- **Positions** are ``offset + 1``: 1-based and strictly increasing, but not contiguous (each
  transaction's commit marker takes an offset).
- **Dedupe**: each record's ``dedupe_id`` travels in a header; ids and their payloads are read
  back when the log opens and kept in memory (`payload_of` answers from there). A second
  `KafkaLog` on the same topic takes over the transactional id and fences the first (its next
  append fails), so there is one writer and the in-memory index stays true.
- **Retention** is infinite (the log is the audit record).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Sequence

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from controller.model.errors import DuplicateRecord, StoreUnavailable
from streams.adapters.kafka.read import (
    as_bytes,
    header,
    partitions_of,
    read_partition,
    reader,
    text,
)
from streams.adapters.kafka.security import client_settings
from streams.adapters.kafka.topics import INFINITE, TopicSpec, provision
from streams.codec import DEDUPE_HEADER
from streams.ports import LogRecord, StoredRecord

TIMEOUT_S = 30.0


def log_topic_spec(topic: str, replication: int = 1) -> TopicSpec:
    """One partition (total order), kept forever."""
    config = {
        "cleanup.policy": "delete",
        "retention.ms": INFINITE,
        "retention.bytes": INFINITE,
        "min.insync.replicas": str(min(2, replication)),
    }
    return TopicSpec(topic, 1, config)


class KafkaLog:
    """An append-only event log on a single-partition topic (see the module docstring)."""

    def __init__(self, bootstrap: str, topic: str, transactional_id: str | None = None) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self._lock = threading.Lock()
        provision(bootstrap, [log_topic_spec(topic)])
        self._producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                **client_settings(),
                "transactional.id": transactional_id or f"jackpot-log-{topic}",
                "enable.idempotence": True,
                "acks": "all",
                "linger.ms": 0,
                "log_level": 3,
            }
        )
        try:
            self._producer.init_transactions(TIMEOUT_S)
        except KafkaException as exc:
            msg = f"cannot open the event log {topic} at {bootstrap}: {exc}"
            raise StoreUnavailable(msg) from exc
        self._head, self._ids = 0, dict[str, bytes]()
        for record, dedupe in self._scan(0):
            self._head = record.position
            if dedupe:
                self._ids[dedupe] = record.payload

    def append(self, batch: Sequence[LogRecord]) -> int:
        """Append in one transaction; DuplicateRecord (nothing appended) if an id repeats."""
        with self._lock:
            ids = [r.dedupe_id for r in batch if r.dedupe_id]
            if len(set(ids)) != len(ids) or self._ids.keys() & set(ids):
                msg = "a record in the batch repeats a dedupe id already in the log"
                raise DuplicateRecord(msg)
            if not batch:
                return self._head
            offsets = self._transact(batch)
            self._ids.update((r.dedupe_id, r.payload) for r in batch if r.dedupe_id)
            self._head = max(offsets) + 1
            return self._head

    def _transact(self, batch: Sequence[LogRecord]) -> list[int]:
        offsets: list[int] = []
        errors: list[KafkaError] = []

        def delivered(error: KafkaError | None, message: Message) -> None:
            if error is not None:  # check first: a failed message has no offset to ask for
                errors.append(error)
                return
            offset = message.offset()
            if offset is None:
                errors.append(KafkaError(KafkaError._FAIL))
            else:
                offsets.append(offset)

        try:
            self._producer.begin_transaction()
            for record in batch:
                headers: list[tuple[str, str | bytes | None]] = (
                    [(DEDUPE_HEADER, record.dedupe_id)] if record.dedupe_id else []
                )
                self._producer.produce(
                    self.topic, record.payload, record.key.encode(), 0, delivered, headers=headers
                )
            self._producer.flush(TIMEOUT_S)
            if errors or len(offsets) != len(batch):
                raise KafkaException(errors[0] if errors else KafkaError(KafkaError._TIMED_OUT))
            self._producer.commit_transaction(TIMEOUT_S)
        except KafkaException as exc:
            self._abort()
            msg = f"append to {self.topic} failed, nothing appended: {exc}"
            raise StoreUnavailable(msg) from exc
        return offsets

    def _abort(self) -> None:
        try:
            self._producer.abort_transaction(TIMEOUT_S)
        except KafkaException:  # fenced or not in a transaction: nothing was committed anyway
            return

    def read(self, after: int = 0) -> Iterator[StoredRecord]:
        """Committed records with position > ``after``, in order."""
        for record, _ in self._scan(after):
            yield record

    def _scan(self, after: int) -> Iterator[tuple[StoredRecord, str]]:
        consumer = reader(self.bootstrap)
        try:
            partitions_of(consumer, self.topic, TIMEOUT_S)
            for message in read_partition(consumer, self.topic, 0, after, TIMEOUT_S):
                yield _stored(message)
        finally:
            consumer.close()

    def head(self) -> int:
        """The position of the last record (0 when empty)."""
        with self._lock:
            return self._head

    def contains(self, dedupe_id: str) -> bool:
        """Whether a record with this dedupe id was appended."""
        with self._lock:
            return dedupe_id in self._ids

    def payload_of(self, dedupe_id: str) -> bytes | None:
        """The payload appended with this dedupe id, or None (a retry is compared with it)."""
        with self._lock:
            return self._ids.get(dedupe_id)

    def payloads_of(self, dedupe_ids: Collection[str]) -> dict[str, bytes]:
        """The payloads appended with these dedupe ids (unknown ids left out), from memory."""
        with self._lock:
            return {i: self._ids[i] for i in dedupe_ids if i in self._ids}

    def close(self) -> None:
        """Release the producer; appended records stay."""
        with self._lock:
            self._producer.flush(TIMEOUT_S)


def _stored(message: Message) -> tuple[StoredRecord, str]:
    offset = message.offset()
    assert offset is not None  # a consumed record always has one
    record = StoredRecord(
        position=offset + 1, key=text(message.key()), payload=as_bytes(message.value())
    )
    return record, header(message, DEDUPE_HEADER)
