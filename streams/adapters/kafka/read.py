"""Reading topics to their end without a consumer group: for dumps, audits, the log adapter and
resumable ingest. Nothing is committed; every call starts from the offsets it is given."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, TopicPartition

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.security import client_settings

SLICE_S = 0.1
#: What a partition without a known leader answers (created a moment ago, or its broker just
#: restarted): worth asking again.
_NO_LEADER_YET = frozenset(
    {
        KafkaError.NOT_LEADER_FOR_PARTITION,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.UNKNOWN_TOPIC_OR_PART,
    }
)


def as_bytes(value: str | bytes | None) -> bytes:
    """A record's key or value as bytes (None: empty)."""
    if value is None:
        return b""
    return value.encode() if isinstance(value, str) else value


def text(value: str | bytes | None) -> str:
    """A record's key or header as text (None: empty)."""
    return as_bytes(value).decode("utf-8", "replace")


def header(message: Message, name: str) -> str:
    """The first header ``name`` of a record as text ("" if it has none)."""
    headers = message.headers() or []
    pairs = headers.items() if isinstance(headers, dict) else headers
    for key, value in pairs:
        if key == name:
            return text(value)
    return ""


def reader(bootstrap: str) -> Consumer:
    """A consumer that joins no group and commits nothing (read_committed)."""
    return Consumer(
        {
            "bootstrap.servers": bootstrap,
            **client_settings(),
            "group.id": f"jackpot-reader-{uuid.uuid4()}",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "isolation.level": "read_committed",
            "log_level": 3,
        }
    )


def read_topic(bootstrap: str, topic: str, timeout: float = 60.0) -> Iterator[Message]:
    """Every record of ``topic`` up to each partition's end as of the call: in offset order per
    partition, partitions interleaved."""
    consumer = reader(bootstrap)
    try:
        starts = dict.fromkeys(partitions_of(consumer, topic, timeout))
        yield from read_partitions(consumer, topic, starts, timeout)
    finally:
        consumer.close()


def read_values(bootstrap: str, topic: str, timeout: float = 60.0) -> Iterator[bytes]:
    """The values of `read_topic` (tombstones left out)."""
    for message in read_topic(bootstrap, topic, timeout):
        value = message.value()
        if value is not None:
            yield value


def partitions_of(consumer: Consumer, topic: str, timeout: float) -> list[int]:
    """The partition numbers of ``topic``; StoreUnavailable if it does not exist."""
    metadata = consumer.list_topics(topic, timeout=timeout).topics.get(topic)
    if metadata is None or metadata.error is not None or not metadata.partitions:
        error = "missing" if metadata is None else metadata.error
        msg = f"topic {topic} is not readable ({error}): is it provisioned?"
        raise StoreUnavailable(msg)
    return sorted(metadata.partitions)


def read_range(
    bootstrap: str, topic: str, partition: int, *, start: int, stop: int, timeout: float = 60.0
) -> list[Message]:
    """The records of one partition with ``start <= offset < stop``."""
    consumer = reader(bootstrap)
    try:
        out: list[Message] = []
        for message in read_partition(consumer, topic, partition, start, timeout):
            offset = message.offset()
            if offset is None or offset >= stop:
                break
            out.append(message)
        return out
    finally:
        consumer.close()


def read_partition(
    consumer: Consumer, topic: str, partition: int, start: int | None, timeout: float
) -> Iterator[Message]:
    """Records of one partition from offset ``start`` (None: the earliest) to its end as of now."""
    return read_partitions(consumer, topic, {partition: start}, timeout)


def watermarks(consumer: Consumer, topic: str, partition: int, timeout: float) -> tuple[int, int]:
    """The partition's low and high offsets. A retriable answer is asked again until ``timeout``:
    a topic created a moment ago has no leader yet (``NOT_LEADER_FOR_PARTITION``; seen in CI when
    ``ingest`` read a just-provisioned topic), nor has one whose broker just restarted.
    StoreUnavailable once it is not retriable or the time is up."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout)
            return low, high
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            retriable = isinstance(error, KafkaError) and (
                error.retriable() or error.code() in _NO_LEADER_YET
            )
            if not retriable or time.monotonic() > deadline:
                msg = f"{topic}[{partition}]: cannot read its offsets: {exc}"
                raise StoreUnavailable(msg) from exc
            time.sleep(SLICE_S)


def read_partitions(
    consumer: Consumer, topic: str, starts: dict[int, int | None], timeout: float
) -> Iterator[Message]:
    """Records of the partitions in ``starts`` (partition -> first offset, None: the earliest) up
    to each one's end as of now; StoreUnavailable if nothing arrives for ``timeout`` seconds."""
    ends: dict[int, int] = {}
    assignment = []
    for partition, start in starts.items():
        low, high = watermarks(consumer, topic, partition, timeout)
        first = low if start is None else max(start, low)
        if first < high:
            ends[partition] = high
            assignment.append(TopicPartition(topic, partition, first))
    if not ends:
        return
    consumer.assign(assignment)
    deadline = time.monotonic() + timeout
    while ends:
        # consume() waits for num_messages or the whole timeout, so ask in short slices
        batch = consumer.consume(num_messages=1_000, timeout=SLICE_S)
        if batch:
            deadline = time.monotonic() + timeout
        elif time.monotonic() > deadline:
            msg = f"{topic}: no record within {timeout}s before the ends {ends}"
            raise StoreUnavailable(msg)
        for message in batch:
            if _at_end(message, ends, topic):
                continue
            yield message
            offset, part = message.offset(), message.partition()
            if offset is not None and part is not None and offset >= ends.get(part, 0) - 1:
                ends.pop(part, None)


def _at_end(message: Message, ends: dict[int, int], topic: str) -> bool:
    """True for an end-of-partition marker (and forget that partition); raise on other errors."""
    error = message.error()
    if error is None:
        return message.partition() not in ends  # a late record of a finished partition
    if error.code() == KafkaError._PARTITION_EOF:
        ends.pop(message.partition() or 0, None)
        return True
    msg = f"{topic}[{message.partition()}]: reading failed: {error}"
    raise StoreUnavailable(msg)
