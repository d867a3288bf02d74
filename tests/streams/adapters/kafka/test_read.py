"""`streams.adapters.kafka.read.watermarks` asks a partition without a leader again (a topic
created a moment ago: seen in CI as ``NOT_LEADER_FOR_PARTITION`` when ``ingest`` read a topic
just provisioned) and gives up at once on anything else."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException

from controller.model.errors import StoreUnavailable
from streams.adapters.kafka.read import watermarks


class Answers:
    """A consumer whose ``get_watermark_offsets`` raises ``errors`` in turn, then answers."""

    def __init__(self, *errors: int) -> None:
        self.errors, self.asked = list(errors), 0

    def get_watermark_offsets(self, partition: Any, timeout: float) -> tuple[int, int]:
        self.asked += 1
        if self.errors:
            raise KafkaException(KafkaError(self.errors.pop(0)))
        return 3, 17


@pytest.mark.parametrize(
    "code",
    [
        KafkaError.NOT_LEADER_FOR_PARTITION,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.UNKNOWN_TOPIC_OR_PART,
    ],
)
def test_a_partition_without_a_leader_yet_is_asked_again(code: int) -> None:
    consumer = Answers(code, code)
    assert watermarks(consumer, "t", 0, timeout=5.0) == (3, 17)  # type: ignore[arg-type]
    assert consumer.asked == 3


def test_any_other_refusal_ends_at_once() -> None:
    consumer = Answers(KafkaError.TOPIC_AUTHORIZATION_FAILED)
    with pytest.raises(StoreUnavailable, match=r"t\[2\]: cannot read its offsets"):
        watermarks(consumer, "t", 2, timeout=5.0)  # type: ignore[arg-type]
    assert consumer.asked == 1


def test_a_leader_that_never_comes_ends_at_the_timeout() -> None:
    consumer = Answers(*[KafkaError.NOT_LEADER_FOR_PARTITION] * 100)
    with pytest.raises(StoreUnavailable, match="Not leader"):
        watermarks(consumer, "t", 0, timeout=0.25)  # type: ignore[arg-type]
    assert 2 <= consumer.asked < 100
