"""A batch starts at its first record (`streams.scaleout.batch.take`): ``poll`` returns as soon
as one is there, and the rest of the batch is what is queued, waited for only until the
``--commit-interval`` after the previous transaction began: ``consume(n, t)`` alone waited all
of ``t`` unless ``n`` records came, adding ``t`` to each lane's latency on a light load."""

from __future__ import annotations

import time
from typing import Any

import pytest

from streams.scaleout.batch import take


class FakeConsumer:
    """Hands out ``queued`` records; records the waits it was given."""

    def __init__(self, queued: list[str]) -> None:
        self.queued = queued
        self.waits: list[tuple[str, int, float]] = []

    def poll(self, timeout: float) -> Any:
        self.waits.append(("poll", 1, timeout))
        return self.queued.pop(0) if self.queued else None

    def consume(self, count: int, timeout: float) -> list[Any]:
        self.waits.append(("consume", count, timeout))
        got, self.queued = self.queued[:count], self.queued[count:]
        return got


def test_nothing_within_the_timeout_is_an_empty_batch() -> None:
    consumer: Any = FakeConsumer([])
    assert take(consumer, 500, 0.1, time.monotonic() + 5) == []
    assert consumer.waits == [("poll", 1, 0.1)]


def test_the_first_record_and_what_is_queued_past_the_interval() -> None:
    consumer: Any = FakeConsumer(["a", "b", "c"])
    got: list[Any] = take(consumer, 500, 0.1, time.monotonic() - 1)
    assert got == ["a", "b", "c"]
    assert consumer.waits == [("poll", 1, 0.1), ("consume", 499, 0.0)]  # no wait: overdue


def test_within_the_interval_it_waits_for_more_until_then() -> None:
    consumer: Any = FakeConsumer(["a", "b"])
    take(consumer, 3, 0.1, time.monotonic() + 0.05)
    (_, count, wait) = consumer.waits[1]
    assert count == 2
    assert 0.0 < wait <= 0.05


@pytest.mark.parametrize("size", [1])
def test_a_batch_of_one_takes_only_the_first(size: int) -> None:
    consumer: Any = FakeConsumer(["a", "b"])
    got: list[Any] = take(consumer, size, 0.1, time.monotonic() + 1)
    assert got == ["a"]
    assert consumer.queued == ["b"]
