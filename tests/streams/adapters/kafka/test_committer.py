"""The loop's commits run on one thread (`streams.adapters.kafka.transactions.Committer`), not a
thread each: in order, with a thread's ``join``/``is_alive`` for the loop, a failure kept for it,
a stuck commit holding the ones after it, and the thread ended on close."""

from __future__ import annotations

import threading
import time
from typing import Any, cast

from confluent_kafka import KafkaError, KafkaException

from streams.adapters.kafka.transactions import Committer, Committing
from streams.adapters.prometheus.worker import WorkerMetrics
from streams.scaleout.batch import Batch
from streams.scaleout.store import PartitionState
from streams.scaleout.txloop import TxLoop
from tests.streams.scaleout.test_txloop_migrated import LANE, FakeConsumer, FakeProducer, T


class ThreadsProducer(FakeProducer):
    """`FakeProducer` noting the thread of each commit; ``hold`` keeps a commit waiting."""

    def __init__(self) -> None:
        super().__init__([], None)
        self.threads: list[threading.Thread] = []
        self.hold = threading.Event()
        self.hold.set()

    def commit_transaction(self, *args: Any) -> None:
        self.hold.wait(10)
        self.threads.append(threading.current_thread())
        super().commit_transaction(*args)


def committing(producer: Any, committer: Committer | None, batch: int) -> Committing[int]:
    return Committing(batch, [], object(), producer, 1.0, committer=committer)


def test_the_loops_commits_run_on_one_thread() -> None:
    """Batch after batch, every commit on the same thread (a thread per commit before)."""
    producer = ThreadsProducer()
    loop = TxLoop(
        "fake:9092", cast(Any, FakeConsumer([])), cast(Any, producer), [LANE], WorkerMetrics()
    )
    loop.owned.states[(T, 0)] = PartitionState({}, 5)
    for offset in range(6, 12):
        batch = Batch(time.monotonic(), progress={(T, 0): offset})
        batch.records = 1
        loop.finish()
        loop._transact(batch)
    loop.finish()
    assert producer.calls.count("commit") == 6
    assert len(producer.threads) == 6
    assert len({id(t) for t in producer.threads}) == 1
    assert producer.threads[0] is not threading.main_thread()
    loop.close()
    producer.threads[0].join(5)
    assert not producer.threads[0].is_alive()


def test_in_order_as_a_thread_for_the_loop() -> None:
    """``is_alive`` until done, ``join`` waits; a stuck commit holds the next one."""
    producer, committer = ThreadsProducer(), Committer()
    producer.hold.clear()
    first, second = committing(producer, committer, 1), committing(producer, committer, 2)
    assert not first.is_alive()
    first.start()
    second.start()
    first.join(0.05)
    assert first.is_alive()
    assert second.is_alive()
    producer.hold.set()
    first.join(5)
    second.join(5)
    assert not first.is_alive()
    assert not second.is_alive()
    assert first.committed <= second.committed
    assert first.error is None
    committer.close()


def test_a_failure_is_kept_and_the_thread_goes_on() -> None:
    fenced = KafkaException(KafkaError(KafkaError.PRODUCER_FENCED))
    producer, committer = FakeProducer([], fenced), Committer()
    failed = committing(producer, committer, 1)
    failed.start()
    failed.join(5)
    assert failed.error is fenced
    assert not failed.is_alive()
    producer.offsets_error = None
    after = committing(producer, committer, 2)
    after.start()
    after.join(5)
    assert after.error is None
    assert after.committed > 0
    committer.close()


def test_without_a_committer_a_thread_of_its_own() -> None:
    producer = ThreadsProducer()
    alone = committing(producer, None, 1)
    alone.start()
    alone.join(5)
    assert not alone.is_alive()
    assert alone.committed > 0
    assert producer.threads[0] is not threading.main_thread()
