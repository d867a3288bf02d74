"""The loop's commits run on one thread (`streams.adapters.kafka.transactions.Committer`), not a
thread each: in order, with a thread's ``join``/``is_alive`` for the loop, a failure kept for it,
a stuck commit holding the ones after it, and the thread ended on close. A commit needs the
committer (no thread of its own), and a failure that is no Kafka error is a failed commit too:
the batch aborted, never acknowledged."""

from __future__ import annotations

import os
import threading
import time
from typing import Any, cast

import pytest
from confluent_kafka import KafkaError, KafkaException

from controller.model.errors import StoreUnavailable
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


def committing(producer: Any, committer: Committer, batch: int) -> Committing[int]:
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


def test_a_commit_needs_the_committer() -> None:
    """No commit starts a thread of its own: the committer is a required argument."""
    with pytest.raises(TypeError, match="committer"):
        Committing(1, [], object(), cast(Any, ThreadsProducer()), 1.0)  # type: ignore[call-arg]


class BrokenProducer(FakeProducer):
    """Its commit raises something that is no Kafka error (a bug, a client's own failure)."""

    def commit_transaction(self, *args: Any) -> None:
        self.calls.append("commit")
        raise RuntimeError("not a Kafka error")


def test_a_failure_that_is_no_kafka_error_is_kept_and_the_thread_goes_on() -> None:
    producer, committer = BrokenProducer([], None), Committer()
    failed = committing(producer, committer, 1)
    failed.start()
    failed.join(5)
    assert isinstance(failed.error, RuntimeError)
    assert failed.committed == 0.0
    after = committing(FakeProducer([], None), committer, 2)
    after.start()
    after.join(5)
    assert after.error is None
    assert after.committed > 0
    committer.close()


def test_the_loop_aborts_a_batch_whose_commit_raised_something_else() -> None:
    """Not acknowledged: the transaction aborted, the batch not counted as committed, and the
    loop raises StoreUnavailable (the worker rebuilds, or exits for its supervisor)."""
    calls: list[str] = []
    producer = BrokenProducer(calls, None)
    loop = TxLoop(
        "fake:9092", cast(Any, FakeConsumer([])), cast(Any, producer), [LANE], WorkerMetrics()
    )
    loop.owned.states[(T, 0)] = PartitionState({}, 5)
    batch = Batch(time.monotonic(), progress={(T, 0): 6})
    batch.records = 1
    loop._transact(batch)
    with pytest.raises(StoreUnavailable, match="RuntimeError: not a Kafka error"):
        loop.finish()
    assert calls[-2:] == ["commit", "abort"]
    assert loop.committed == 0
    assert not loop.in_transaction
    assert loop._metrics.stale_writes.labels("batch")._value.get() == 1
    loop.close()


def test_the_loop_hands_the_gil_to_the_commit_thread_once_the_commit_is_submitted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One ``sched_yield`` right after the commit is handed to the committer (its thread has
    Python to run before librdkafka's call releases the GIL), none before."""
    producer = ThreadsProducer()
    loop = TxLoop(
        "fake:9092", cast(Any, FakeConsumer([])), cast(Any, producer), [LANE], WorkerMetrics()
    )
    loop.owned.states[(T, 0)] = PartitionState({}, 5)
    submitted: list[bool] = []
    monkeypatch.setattr(
        os,
        "sched_yield",
        lambda: submitted.append(loop._committing is not None and loop._committing._started),
    )
    batch = Batch(time.monotonic(), progress={(T, 0): 6})
    batch.records = 1
    loop._transact(batch)
    assert submitted == [True]
    loop.finish()
    loop.close()
