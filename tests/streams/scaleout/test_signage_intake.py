"""The projector's Kafka side without a broker: records sorted on their raw bytes, and partitions
assigned, caught up with, lost and committed (`streams.scaleout.signage`)."""

from __future__ import annotations

from confluent_kafka import OFFSET_BEGINNING, Message, TopicPartition

from streams.codec import encode
from streams.scaleout.signage_fold import Record
from streams.scaleout.signage_read import Partitions, batch_of
from tests.streams.embedded.test_signage_feed import FakeClock, FlakyModel
from tests.streams.scaleout.test_signage import embedded_run, projector

TOPIC = "p.events"


def message(partition: int, offset: int, key: bytes, dedupe: bytes | None) -> Message:
    headers: list[tuple[str, str | bytes | None]] | None = None
    if dedupe is not None:
        headers = [("dedupe_id", dedupe)]
    return Message(
        topic=TOPIC, partition=partition, offset=offset, key=key, value=b"{}", headers=headers
    )


class FakeConsumer:
    """What `Partitions` asks of a consumer: ends, assignment and commits."""

    def __init__(self, highs: dict[int, int]) -> None:
        self.highs = highs
        self.assigned: list[tuple[int, int]] = []
        self.commits: list[list[tuple[int, int]]] = []

    def get_watermark_offsets(
        self, tp: TopicPartition, timeout: float, cached: bool
    ) -> tuple[int, int]:
        return 0, self.highs[tp.partition]

    def assign(self, parts: list[TopicPartition]) -> None:
        self.assigned = [(tp.partition, tp.offset) for tp in parts]

    def commit(self, offsets: list[TopicPartition], asynchronous: bool) -> None:
        self.commits.append([(tp.partition, tp.offset) for tp in offsets])


def test_only_records_whose_id_is_their_key_and_at_are_kept_for_decoding() -> None:
    batch = batch_of(
        [
            message(0, 7, b"tcp-progressive", b"tcp-progressive@12"),
            message(0, 8, b"tcp-1", b"evt-991"),  # a table event
            message(1, 3, b"tcp-1", None),  # no id at all
            message(1, 4, b"tcp-1", b"tcp-1@x"),  # looks like one: decoded and checked later
            message(2, 0, b"floor", b"config:abc"),
        ]
    )
    assert batch.records == [
        Record(0, 7, "tcp-progressive", "tcp-progressive@12", b"{}"),
        Record(1, 4, "tcp-1", "tcp-1@x", b"{}"),
    ]
    assert batch.others == 3
    assert batch.next == {0: 9, 1: 5, 2: 1}


def test_new_partitions_are_read_from_the_start_and_held_until_their_end() -> None:
    state, events, _ = embedded_run()
    model, clock = FlakyModel(), FakeClock()
    made, _ = projector(model, clock)
    consumer = FakeConsumer({0: 10, 1: 0})
    parts = Partitions(consumer, TOPIC, made)  # type: ignore[arg-type]  # a fake consumer
    parts.on_assign(consumer, [TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)])  # type: ignore[arg-type]
    assert consumer.assigned == [(0, OFFSET_BEGINNING), (1, OFFSET_BEGINNING)]
    assert made.holding  # partition 0 has records to catch up with; partition 1 is empty
    made.take(
        [
            Record(0, i, e.meter_id, f"{e.meter_id}@{e.meter_seq}", encode(e))
            for i, e in enumerate(events)
        ]
    )
    parts.advance({0: 9})
    assert made.holding
    assert model.calls == 0
    parts.advance({0: 10})
    assert not made.holding  # caught up: every meter published once
    assert model.calls == len(state.meters)
    assert made.clean
    parts.commit()
    parts.commit()  # nothing new: nothing sent
    assert consumer.commits == [[(0, 10)]]


def test_a_lost_partition_is_forgotten_and_a_kept_one_goes_on_where_it_was() -> None:
    _, events, _ = embedded_run()
    model, clock = FlakyModel(), FakeClock()
    made, _ = projector(model, clock)
    consumer = FakeConsumer({0: 0, 1: 0})
    parts = Partitions(consumer, TOPIC, made)  # type: ignore[arg-type]  # a fake consumer
    parts.on_assign(consumer, [TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)])  # type: ignore[arg-type]
    meters = sorted({e.meter_id for e in events})
    on_one = set(meters[:2])
    made.take(
        [
            Record(
                1 if e.meter_id in on_one else 0,
                i,
                e.meter_id,
                f"{e.meter_id}@{e.meter_seq}",
                encode(e),
            )
            for i, e in enumerate(events)
        ]
    )
    parts.advance({0: 40, 1: 30})
    parts.on_assign(consumer, [TopicPartition(TOPIC, 0)])  # type: ignore[arg-type]
    assert consumer.assigned == [(0, 40)]
    assert set(made.fold.meters) == set(meters) - on_one
    assert parts.next == {0: 40}
    assert not made.holding
