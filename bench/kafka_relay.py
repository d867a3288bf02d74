"""The "kafka latency" row's reference (`bench.kafka_latency`): a plain confluent-kafka
transactional relay with the worker's transactional hops and nothing to decide, run as a child
process of its own, as the worker is:
``python -m bench.kafka_relay --bootstrap B --source T --target T2 --group G``.

Why: the row's goal (p99 < 50 ms at 2,000 events/s) says nothing of what this host allows. With
one worker that owns every meter, local apply (`streams.scaleout.local_apply`) makes a round ONE
transaction: ``wagers_locked`` in on table-events, its contributions out on events, committed
with the consumed offsets. The relay does exactly that hop with no work in it: it consumes the
table-events topic ``read_committed`` in a group (the worker's consumer settings,
`streams.adapters.kafka.transactions.group_consumer`), and per batch, in one transaction of the
worker's producer settings (`transactional_producer`), produces each record unchanged (same key)
to ``target``, sends the consumed offsets (``send_offsets_to_transaction``, KIP-447) and
commits. A batch starts at its first record and takes what is queued up to the worker's
``--batch`` cap, waiting for more until ``--commit-interval`` after the previous transaction
began (the worker's own `streams.scaleout.batch.take`); the defaults are the worker's
(`WorkerSettings`). Unlike the worker it does not overlap a commit with the next batch: consume,
produce, commit, in series, the plainest loop that keeps exactly once.

It prints ``ready <partitions>`` once the group assigned it the topic's partitions (the bench
waits for that as for the worker's ``ready``) and stops at SIGTERM after the batch in hand.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Message, Producer, TopicPartition

from streams.adapters.kafka.settings import WorkerSettings
from streams.adapters.kafka.transactions import group_consumer, transactional_producer
from streams.scaleout.batch import take

#: the worker's defaults (``--batch``, ``--commit-interval``, ``--session-timeout``)
DEFAULTS = WorkerSettings("", "", Path(), Path())
SESSION_TIMEOUT_MS = int(1000 * DEFAULTS.session_timeout_s)
TXN_S = 30.0
IDLE_POLL_S = 0.1  # the worker's `streams.scaleout.txloop.IDLE_POLL_S`


class Relay:
    """The loop (module docstring); ``stopping`` is set by SIGTERM."""

    def __init__(self, consumer: Consumer, producer: Producer, target: str) -> None:
        self.consumer, self.producer, self.target = consumer, producer, target
        self.stopping = False

    def run(self, batch: int, interval: float) -> None:
        """Batches until SIGTERM; each one transaction (records, offsets), committed in series."""
        started = 0.0
        while not self.stopping:
            taken = take(self.consumer, batch, IDLE_POLL_S, started + interval)
            records = [m for m in taken if m.error() is None]
            if records:
                started = time.monotonic()
                self.transact(records)

    def transact(self, records: list[Message]) -> None:
        """``records`` copied to the target and their offsets, in one committed transaction."""
        self.producer.begin_transaction()
        progress: dict[tuple[str, int], int] = {}
        for message in records:
            self.producer.produce(self.target, key=message.key(), value=message.value())
            where = (message.topic() or "", message.partition() or 0)
            progress[where] = (message.offset() or 0) + 1
        offsets = [TopicPartition(t, p, o) for (t, p), o in progress.items()]
        metadata = self.consumer.consumer_group_metadata()
        self.producer.send_offsets_to_transaction(offsets, metadata, TXN_S)
        self.producer.commit_transaction(TXN_S)


def relay(bootstrap: str, source: str, target: str, group: str, options: Any) -> None:
    """Run the relay from ``source`` to ``target`` until SIGTERM."""
    consumer = group_consumer(bootstrap, group, SESSION_TIMEOUT_MS, "bench-relay")
    loop = Relay(consumer, transactional_producer(bootstrap, f"{group}-tx"), target)
    signal.signal(signal.SIGTERM, lambda *_: setattr(loop, "stopping", True))

    def assigned(_: Consumer, partitions: list[TopicPartition]) -> None:
        print(f"ready {len(partitions)}", flush=True)

    consumer.subscribe([source], on_assign=assigned)
    try:
        loop.run(options.batch, options.commit_interval)
    finally:
        consumer.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.kafka_relay ...``: the relay as a child process."""
    parser = argparse.ArgumentParser(prog="python -m bench.kafka_relay")
    for name in ("--bootstrap", "--source", "--target", "--group"):
        parser.add_argument(name, required=True)
    parser.add_argument("--batch", type=int, default=DEFAULTS.batch)
    parser.add_argument("--commit-interval", type=float, default=DEFAULTS.commit_interval_s)
    args = parser.parse_args(argv)
    relay(args.bootstrap, args.source, args.target, args.group, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
