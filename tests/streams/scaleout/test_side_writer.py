"""The liveness records leave the money transaction (`streams.scaleout.side`): they are sent by a
side producer, at least once, and only once their batch committed; every other output stays in
the transaction. Fakes stand in for the clients (the real-broker proof of the read side is
``tests/integration/test_kafka_playability.py``)."""

from __future__ import annotations

import time
from typing import Any, cast

import pytest
from confluent_kafka import KafkaError, KafkaException

from streams.adapters.prometheus.worker import WorkerMetrics
from streams.codec import Output
from streams.scaleout import side
from streams.scaleout.batch import Batch
from streams.scaleout.heard import Heard
from streams.scaleout.records import SourcePos
from streams.scaleout.side import SideWriter
from streams.scaleout.store import PartitionState
from streams.scaleout.tx_failures import Migrated
from streams.scaleout.txloop import TxLoop
from tests.streams.scaleout.test_txloop_migrated import LANE, FakeConsumer, FakeProducer, T

LIVENESS = "p.liveness"
EVENTS = "p.events"


class TopicsProducer(FakeProducer):
    """`FakeProducer` that also notes the topic of each record produced."""

    def __init__(self, calls: list[str], offsets_error: KafkaException | None = None) -> None:
        super().__init__(calls, offsets_error)
        self.topics: list[str] = []

    def produce(self, topic: str, *args: Any, **kwargs: Any) -> None:
        self.topics.append(topic)
        on_delivery = kwargs.get("on_delivery")
        if on_delivery is not None and hasattr(self, "deliver"):
            self.deliver.append(on_delivery)

    def poll(self, timeout: float) -> int:
        return 0

    def flush(self, timeout: float) -> int:
        return 0

    def purge(self) -> None:
        self.topics.clear()


def heard(table: str, offset: int) -> Heard:
    return Heard(LIVENESS, table, "event", f"e{offset}", SourcePos(T, 0, offset))


def side_writer(made: list[TopicsProducer]) -> SideWriter:
    def make(config: dict[str, object]) -> Any:
        made.append(TopicsProducer([]))
        made[-1].deliver = []  # type: ignore[attr-defined]
        return made[-1]

    return SideWriter("fake:9092", "w-side", [LIVENESS], make)


def batch_of(outputs: list[Output]) -> Batch:
    batch = Batch(time.monotonic(), states={(T, 0): {b"tcp-1": 9}}, progress={(T, 0): 9})
    batch.records, batch.outputs = 4, {"round": outputs}
    return batch


def loop(error: KafkaException | None = None) -> tuple[TxLoop, TopicsProducer, list[Any]]:
    calls: list[str] = []
    producer, made = TopicsProducer(calls, error), list[TopicsProducer]()
    side = side_writer(made)
    consumer: Any = FakeConsumer(calls)
    txloop = TxLoop("fake:9092", consumer, cast(Any, producer), [LANE], WorkerMetrics(), side=side)
    txloop.owned.states[(T, 0)] = PartitionState({b"tcp-1": 5}, 5)
    return txloop, producer, made


def test_liveness_is_sent_by_the_side_producer_once_its_batch_committed() -> None:
    txloop, producer, made = loop()
    event = Output(EVENTS, "tcp-1", b"{}", "e1")
    txloop._transact(batch_of([event, heard("tcp-1", 5), heard("tcp-1", 6)]))
    assert LIVENESS not in producer.topics  # nothing of it in the transaction
    assert EVENTS in producer.topics
    assert made[0].topics == []  # not before the commit is known
    txloop.finish()
    assert made[0].topics == [LIVENESS]  # the last per table of the batch (`coalesced`)


def test_a_batch_that_did_not_commit_sends_no_liveness() -> None:
    refused = KafkaException(KafkaError(KafkaError.ILLEGAL_GENERATION, "x", False, False, True))
    txloop, _, made = loop(refused)
    txloop._transact(batch_of([heard("tcp-1", 5)]))
    with pytest.raises(Migrated):  # the loop recovers in place; what matters is below
        txloop.finish()
    assert made[0].topics == []


def test_a_fatal_delivery_error_replaces_the_side_producer() -> None:
    made: list[TopicsProducer] = []
    side = side_writer(made)
    side.send([heard("tcp-1", 5)])
    fatal = KafkaError(KafkaError.OUT_OF_ORDER_SEQUENCE_NUMBER, "broken", True)
    made[0].deliver[0](fatal, _Message())  # type: ignore[attr-defined]
    assert side.failed == 1
    side.send([heard("tcp-1", 6)])
    assert len(made) == 2
    assert made[1].topics == [LIVENESS]


class _Message:
    def key(self) -> bytes:
        return b"tcp-1"


def test_the_side_producer_gathers_and_reports_only_failures() -> None:
    """Its records are gathered (`side.LINGER_MS`: one request per partition, not per record)
    and only failed deliveries are reported (no call into Python per record delivered)."""
    configs: list[dict[str, object]] = []

    def make(config: dict[str, object]) -> Any:
        configs.append(config)
        return TopicsProducer([])

    SideWriter("fake:9092", "w-side", [LIVENESS], make)
    assert configs[0]["linger.ms"] == side.LINGER_MS >= 20
    assert configs[0]["delivery.report.only.error"] is True
    assert configs[0]["enable.idempotence"] is True
