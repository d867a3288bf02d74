"""The read side's stall probe on a real broker: a committed record past the group's offset is
waiting; commit markers and an aborted transaction's records are not (a ``read_committed``
consumer is never given them, so a caught-up group must not look stalled)."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

from streams.adapters.kafka.lag import waiting_partitions
from tests.integration.services import require_kafka

pytestmark = pytest.mark.integration


def _topic(bootstrap: str) -> str:
    name = f"lag-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(name, 3, 1)]).values():
        future.result(timeout=30)
    return name


def _transaction(
    producer: Producer, topic: str, partition: int, count: int, *, commit: bool
) -> None:
    producer.begin_transaction()
    for i in range(count):
        producer.produce(topic, value=f"r{i}".encode(), partition=partition)
    producer.flush(30)
    if commit:
        producer.commit_transaction(30)
    else:
        producer.abort_transaction(30)


def _commit(bootstrap: str, group: str, offsets: list[TopicPartition]) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        consumer.commit(offsets=offsets, asynchronous=False)
    finally:
        consumer.close()


def test_only_committed_records_past_the_groups_offset_are_waiting() -> None:
    bootstrap = require_kafka()
    topic = _topic(bootstrap)
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": topic})
    producer.init_transactions(30)
    # partition 0: records 0-2, commit marker 3
    _transaction(producer, topic, 0, 3, commit=True)
    # partition 1: records 0-2, commit marker 3, aborted records 4-5, abort marker 6
    _transaction(producer, topic, 1, 3, commit=True)
    _transaction(producer, topic, 1, 2, commit=False)
    # partition 2: records 0-1, commit marker 2, and the group commits nothing there
    _transaction(producer, topic, 2, 2, commit=True)
    group = f"{topic}-group"

    # caught up everywhere it committed: the offset after the last record is a marker
    _commit(bootstrap, group, [TopicPartition(topic, 0, 3), TopicPartition(topic, 1, 4)])
    assert waiting_partitions(bootstrap, group, topic, [0, 1]) == {}
    # no committed offset: read from the beginning, where records are
    assert waiting_partitions(bootstrap, group, topic, [0, 1, 2]) == {2: (-1, 0)}
    # behind on partition 0 only; on 1, the committed offset is an aborted record's
    offsets = [TopicPartition(topic, 0, 1), TopicPartition(topic, 1, 5)]
    _commit(bootstrap, group, [*offsets, TopicPartition(topic, 2, 2)])
    assert waiting_partitions(bootstrap, group, topic, [0, 1, 2]) == {0: (1, 1)}
    # only the owned partitions are looked at
    assert waiting_partitions(bootstrap, group, topic, [1, 2]) == {}
    assert waiting_partitions(bootstrap, group, topic, []) == {}
