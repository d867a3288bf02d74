"""Smoke test: the real Kafka broker and Redis server started by scripts/ work end to end.

Start them with ``scripts/kafka.sh start`` and ``scripts/redis.sh start``.
"""

from __future__ import annotations

import time
import uuid

import pytest
import redis
from confluent_kafka import Consumer, KafkaError, Message, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

# confluent_kafka.admin does not re-export NewTopic for type checkers; cimpl defines it.
from confluent_kafka.cimpl import NewTopic

from tests.integration.services import require_kafka, require_redis

pytestmark = pytest.mark.integration

TIMEOUT_S = 30.0


def _create_topic(admin: AdminClient, topic: str) -> None:
    futures = admin.create_topics(
        [NewTopic(topic, num_partitions=1, replication_factor=1)], operation_timeout=TIMEOUT_S
    )
    futures[topic].result(timeout=TIMEOUT_S)


def _delete_topic(admin: AdminClient, topic: str) -> None:
    futures = admin.delete_topics([topic], operation_timeout=TIMEOUT_S)
    futures[topic].result(timeout=TIMEOUT_S)


def test_kafka_produce_and_consume_roundtrip() -> None:
    bootstrap = require_kafka()
    run = uuid.uuid4().hex
    topic = f"smoke-{run}"
    payload = f"jackpot smoke {run}".encode()
    admin = AdminClient({"bootstrap.servers": bootstrap})
    _create_topic(admin, topic)
    try:
        delivered: list[Message] = []
        errors: list[KafkaError] = []

        def on_delivery(err: KafkaError | None, msg: Message) -> None:
            if err is not None:
                errors.append(err)
            else:
                delivered.append(msg)

        producer = Producer(
            {"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all"}
        )
        producer.produce(topic, key=run.encode(), value=payload, on_delivery=on_delivery)
        assert producer.flush(TIMEOUT_S) == 0, "producer did not deliver in time"
        assert errors == []
        assert len(delivered) == 1
        assert delivered[0].offset() == 0

        consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"smoke-{run}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
            }
        )
        try:
            consumer.subscribe([topic])
            received: Message | None = None
            deadline = time.monotonic() + TIMEOUT_S
            while received is None and time.monotonic() < deadline:
                msg = consumer.poll(0.5)
                if msg is None:
                    continue
                assert msg.error() is None, f"consumer error: {msg.error()}"
                received = msg
            assert received is not None, f"no message consumed from {topic} in {TIMEOUT_S} s"
            assert received.key() == run.encode()
            assert received.value() == payload
            # Exercise the group coordinator (__consumer_offsets, replication factor 1).
            consumer.commit(message=received, asynchronous=False)
            committed = consumer.committed([TopicPartition(topic, 0)], timeout=TIMEOUT_S)
            assert committed[0].offset == 1
        finally:
            consumer.close()
    finally:
        _delete_topic(admin, topic)


def test_redis_set_and_get() -> None:
    url = require_redis()
    client = redis.Redis.from_url(url, socket_timeout=5)
    key = f"smoke:{uuid.uuid4().hex}"
    try:
        assert client.set(key, b"jackpot", ex=60)
        assert client.get(key) == b"jackpot"
        assert client.delete(key) == 1
        assert client.get(key) is None
    finally:
        client.close()
