"""While the previous batch commits, the records that come join the batch decided meanwhile
(`TxLoop._more`) instead of waiting for the next batch behind this one's whole commit: the tail
of a round's latency (docs/kafka.md "Speed"). A rebalance inside that wait that takes one of
the batch's partitions drops the batch and seeks the owned partitions back, as after a migrated
batch: a batch never writes a partition this worker stopped owning. Fakes stand in for the
clients (the real-broker proofs: test_kafka_parity, test_kafka_rebalance)."""

from __future__ import annotations

import time
from typing import Any

from streams.adapters.prometheus.worker import WorkerMetrics
from streams.scaleout.batch import Batch
from streams.scaleout.store import PartitionState
from streams.scaleout.txloop import TxLoop
from tests.streams.scaleout.test_txloop_migrated import LANE, FakeConsumer, FakeProducer, T


class Record:
    """A consumed record of ``T`` partition 0."""

    def __init__(self, offset: int) -> None:
        self._offset = offset

    def error(self) -> None:
        return None

    def topic(self) -> str:
        return T

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self._offset

    def key(self) -> bytes:
        return b"tcp-1"

    def value(self) -> bytes:
        return b"{}"

    def timestamp(self) -> tuple[int, int]:
        return (1, 1_000)


class Arriving(FakeConsumer):
    """Offset 5 is there at once; each later ``consume`` gets what ``arrivals`` holds next;
    ``during`` runs inside the second (a rebalance's callback, once the batch was decided)."""

    def __init__(self, calls: list[str], arrivals: list[list[Any]]) -> None:
        super().__init__(calls)
        self.arrivals, self.consumed = arrivals, 0
        self.during: Any = None

    def poll(self, timeout: float) -> Any:
        return Record(5)

    def consume(self, count: int, timeout: float) -> list[Any]:
        self.consumed += 1
        if self.during is not None and self.consumed == 2:
            self.during()
        return self.arrivals.pop(0) if self.arrivals else []


class Commit:
    """The previous batch's commit, in flight for ``polls`` looks, then done."""

    def __init__(self, polls: int) -> None:
        self.polls, self.error, self.offsets_sent, self.committed = polls, None, 0.0, 0.0
        self.batch = Batch(time.monotonic())

    def is_alive(self) -> bool:
        self.polls -= 1
        return self.polls >= 0

    def join(self, timeout: float) -> None:
        self.polls = 0


def loop_with(arrivals: list[list[Any]], polls: int) -> tuple[TxLoop, Arriving, list[str]]:
    calls: list[str] = []
    consumer = Arriving(calls, arrivals)
    loop = TxLoop("fake:9092", consumer, FakeProducer(calls, None), [LANE], WorkerMetrics())  # type: ignore[arg-type]
    loop.owned.states[(T, 0)] = PartitionState({}, 5)
    loop.owned.states[(T, 1)] = PartitionState({}, 3)
    loop._committing = Commit(polls)  # type: ignore[assignment]
    return loop, consumer, calls


def test_records_that_come_while_the_previous_batch_commits_join_this_batch() -> None:
    loop, _, _ = loop_with([[], [Record(6)], [Record(7)]], polls=4)
    assert loop.step(0.1) == 3
    assert loop._committing is not None
    assert loop._committing.batch.records == 3
    assert loop._committing.batch.progress == {(T, 0): 8}


def test_no_more_records_are_waited_for_once_the_previous_commit_is_done() -> None:
    loop, _, _ = loop_with([[], [Record(6)]], polls=0)
    assert loop.step(0.1) == 1
    assert loop._committing is not None
    assert loop._committing.batch.progress == {(T, 0): 6}


def test_a_revoke_of_the_batchs_partition_meanwhile_drops_the_batch() -> None:
    loop, consumer, calls = loop_with([[], [Record(6)]], polls=4)
    consumer.during = lambda: loop.owned.states.pop((T, 0), None)  # `Ownership._revoked`
    assert loop.step(0.1) == 0
    assert "begin" not in calls  # nothing of partition 0 written by this worker
    assert consumer.seeks == [(T, 1, 3)]  # the owned partition consumed again from its progress
