"""The processors' output producer: an idempotent confluent-kafka producer whose flush is awaited.

The worker produces a batch's outputs here and waits until the broker acknowledged every one of
them (``acks=all``) before it stores any state: state is never ahead of the outputs it implies.
Idempotence (``enable.idempotence``) keeps each partition's records in produce order with no
broker-side duplicates across retries, so a meter's claims stay in the order a table produced them.

``partitioner=murmur2_random`` hashes keys as the Java client and aiokafka (faust) do, so a key
lands on the same partition whoever produces it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from confluent_kafka import KafkaError, Message, Producer

from controller.errors import StoreUnavailable
from streams.kafka_codec import DEDUPE_HEADER, Output
from streams.kafka_security import client_settings

POLL_PAUSE_S = 0.002


def producer_config(bootstrap: str, client_id: str) -> dict[str, object]:
    """The settings of every idempotent producer of this engine."""
    return {
        "bootstrap.servers": bootstrap,
        **client_settings(),
        "client.id": client_id,
        "enable.idempotence": True,
        "acks": "all",
        "linger.ms": 5,
        "partitioner": "murmur2_random",
        "log_level": 3,
    }


class OutputSink:
    """Produce outputs; `flush` returns when all are acknowledged or raises StoreUnavailable."""

    def __init__(self, bootstrap: str, client_id: str) -> None:
        self._producer = Producer(producer_config(bootstrap, client_id))
        self._errors: list[str] = []

    def _delivered(self, error: KafkaError | None, message: Message) -> None:
        if error is not None:
            self._errors.append(f"{message.topic()}: {error}")

    def produce(self, outputs: Iterable[Output]) -> int:
        """Queue ``outputs`` in order; the number queued."""
        count = 0
        for out in outputs:
            while True:
                try:
                    self._producer.produce(
                        out.topic,
                        key=out.key.encode(),
                        value=out.value,
                        headers=[(DEDUPE_HEADER, out.dedupe_id.encode())],
                        on_delivery=self._delivered,
                    )
                    break
                except BufferError:  # the local queue is full: let deliveries drain it
                    self._producer.poll(0.05)
            count += 1
        return count

    async def flush(self) -> None:
        """Wait (without blocking the event loop) until every queued record is acknowledged."""
        while len(self._producer) > 0:
            self._producer.poll(0)
            await asyncio.sleep(POLL_PAUSE_S)
        self._producer.poll(0)
        if self._errors:
            errors, self._errors = self._errors, []
            msg = f"{len(errors)} output(s) not delivered, first: {errors[0]}"
            raise StoreUnavailable(msg)

    def close(self, timeout: float = 30.0) -> None:
        """Deliver what is queued (blocking, at most ``timeout``); StoreUnavailable if not all
        was acknowledged."""
        left = self._producer.flush(timeout)
        if left or self._errors:
            first = self._errors[0] if self._errors else "timed out"
            msg = f"{left} output(s) still queued, {len(self._errors)} failed ({first})"
            raise StoreUnavailable(msg)
