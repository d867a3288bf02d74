"""The worker's records that are not money: written at least once, outside the transactions.

Only the liveness records (`streams.scaleout.heard`: a table's sign of life, latest wins per
table on a compacted, broker-stamped topic) go here. A transaction's cost grows with the
partitions it writes (the coordinator writes a commit marker to each; measured on one broker, the
same 500 records committed in 33-35 ms on 6 partitions and 52 ms on 36, docs/kafka.md "Speed"),
and the liveness records put 6 more partitions (one per table-events partition a batch read) in
every transaction of the money path, for a record nobody folds: a reader keeps each table's
newest stamp, so one written twice, or once more for a batch that then aborted and is decided
again, says the same thing.

They are sent once their batch **committed** (`streams.scaleout.txloop.TxLoop.finish`), so a sign
of life still stands for input the controller took: a fenced zombie's batch never commits and
writes none. Sending never blocks the loop (``produce`` and ``poll(0)``; librdkafka retries);
a record lost with a crashed worker only means the table's next input, or the next heartbeat,
speaks for it (seconds, against a playability limit of tens). A delivery that fails for good is
logged and counted; a fatal error of the idempotent producer (its sequence broken) replaces the
producer, as librdkafka requires.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from confluent_kafka import KafkaError, Message, Producer

from streams.adapters.kafka.sink import producer_config
from streams.codec import DEDUPE_HEADER, Output

LOG = logging.getLogger("jackpot.kafka.worker")
#: Close: how long to wait for the last records' acknowledgements.
FLUSH_S = 5.0
#: How long the side producer gathers records before a request. librdkafka sends one produce
#: request per partition, and with ``linger.ms`` 0 every batch's few liveness records went out
#: one request each: at 2,000 events/s the side producer made ~415 requests/s for ~540 records
#: (its statistics, issue 13, branch ``k13-s17``), each a round trip for its broker thread and
#: the broker's, beside the money transactions. Gathered, ~45/s. A sign of life 50 ms later is
#: nothing against a playability limit of tens of seconds.
LINGER_MS = 50
#: The producer's settings beyond the engine's (`producer_config`): gathered (`LINGER_MS`), and
#: delivery reports only for failures, the only ones `SideWriter._delivered` acts on (no call
#: into Python per record delivered).
SETTINGS: dict[str, object] = {"linger.ms": LINGER_MS, "delivery.report.only.error": True}


class SideWriter:
    """An idempotent, non-transactional producer for ``topics`` (module docstring)."""

    def __init__(
        self,
        bootstrap: str,
        client_id: str,
        topics: Iterable[str],
        make: Callable[[dict[str, object]], Producer] = Producer,
    ) -> None:
        self.topics = frozenset(topics)
        self._config = {**producer_config(bootstrap, client_id), **SETTINGS}
        self._make = make
        self._producer = make(self._config)
        self.failed = 0  # records whose delivery failed for good
        self._broken = False  # a fatal error: replace the producer before the next send

    def split(self, outputs: list[Output], later: list[Output]) -> list[Output]:
        """``outputs`` without this writer's records, which are added to ``later``."""
        mine = [out for out in outputs if out.topic in self.topics]
        if not mine:
            return outputs
        later.extend(mine)
        return [out for out in outputs if out.topic not in self.topics]

    def send(self, outputs: Iterable[Output]) -> None:
        """Queue ``outputs`` (never waits for the broker) and serve earlier deliveries."""
        if self._broken:
            self._replace()
        for out in outputs:
            headers: list[tuple[str, str | bytes | None]] = [
                (DEDUPE_HEADER, out.dedupe_id.encode())
            ]
            try:
                self._producer.produce(
                    out.topic,
                    out.value,
                    out.key.encode(),
                    headers=headers,
                    on_delivery=self._delivered,
                )
            except BufferError:  # the broker is away for long: the newest sign will do
                self.failed += 1
        self._producer.poll(0)

    def _delivered(self, error: KafkaError | None, message: Message) -> None:
        if error is None:
            return
        self.failed += 1
        if error.fatal():
            self._broken = True
        LOG.warning("liveness record for %r not written: %s", message.key(), error.str())

    def _replace(self) -> None:
        LOG.warning("side producer: fatal error; replacing it")
        self._producer.purge()
        self._producer = self._make(self._config)
        self._broken = False

    def close(self) -> None:
        """Wait (briefly) for what is queued: a stopping worker's last signs of life."""
        self._producer.flush(FLUSH_S)
