"""The processors' output producer: an idempotent confluent-kafka producer whose flush is awaited.

The worker produces a batch's outputs here and waits until the broker acknowledged every one of
them (``acks=all``) before it stores any state: state is never ahead of the outputs it implies.
Each `produce` call returns its own `Delivery`, so a batch waits for its own records only: the
worker produces the next batch while an earlier one's acknowledgements are still due.
Idempotence (``enable.idempotence``) keeps each partition's records in produce order with no
broker-side duplicates across retries, so a meter's claims stay in the order a table produced them.

``partitioner=murmur2_random`` hashes keys as the Java client and aiokafka (faust) do, so a key
lands on the same partition whoever produces it.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterable

from confluent_kafka import KafkaError, Message, Producer

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.security import client_settings
from streams.codec import DEDUPE_HEADER, Output

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


class Delivery:
    """The acknowledgements one `OutputSink.produce` call still waits for, and its failures."""

    __slots__ = ("_all_errors", "errors", "pending")

    def __init__(self, all_errors: list[str]) -> None:
        self.pending = 0
        self.errors: list[str] = []
        self._all_errors = all_errors  # the sink's, for `OutputSink.close`

    def delivered(self, error: KafkaError | None, message: Message) -> None:
        """The producer's delivery callback (runs inside ``poll``)."""
        self.pending -= 1
        if error is not None:
            self.errors.append(f"{message.topic()}: {error}")
            self._all_errors.append(self.errors[-1])


class OutputSink:
    """Produce outputs; `wait` returns when a batch's are all acknowledged or raises
    StoreUnavailable."""

    def __init__(self, bootstrap: str, client_id: str) -> None:
        self._producer = Producer(producer_config(bootstrap, client_id))
        self._errors: list[str] = []

    def produce(self, outputs: Iterable[Output]) -> Delivery:
        """Queue ``outputs`` in order; their `Delivery`."""
        delivery = Delivery(self._errors)
        send = functools.partial(self._producer.produce, on_delivery=delivery.delivered)
        for out in outputs:
            while True:
                try:
                    send(
                        out.topic,
                        key=out.key.encode(),
                        value=out.value,
                        headers=[(DEDUPE_HEADER, out.dedupe_id.encode())],
                    )
                    break
                except BufferError:  # the local queue is full: let deliveries drain it
                    self._producer.poll(0.05)
            delivery.pending += 1
        return delivery

    async def wait(self, delivery: Delivery) -> None:
        """Wait (without blocking the event loop) until every record of ``delivery`` is
        acknowledged; StoreUnavailable if any failed."""
        self._producer.poll(0)
        while delivery.pending > 0:
            await asyncio.sleep(POLL_PAUSE_S)
            self._producer.poll(0)
        if delivery.errors:
            msg = f"{len(delivery.errors)} output(s) not delivered, first: {delivery.errors[0]}"
            raise StoreUnavailable(msg)

    def close(self, timeout: float = 30.0) -> None:
        """Deliver what is queued (blocking, at most ``timeout``); StoreUnavailable if not all
        was acknowledged."""
        left = self._producer.flush(timeout)
        if left or self._errors:
            first = self._errors[0] if self._errors else "timed out"
            msg = f"{left} output(s) still queued, {len(self._errors)} failed ({first})"
            raise StoreUnavailable(msg)
