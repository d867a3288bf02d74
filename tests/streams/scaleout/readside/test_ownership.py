"""The read side's one-owner rule (`streams.scaleout.readside.ownership.Ownership`): it judges hours
only while it owns every partition of the events topic, and says once when that changes."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import NamedTuple

import pytest

from streams.scaleout.readside.ownership import Ownership


class TP(NamedTuple):
    topic: str
    partition: int


@dataclass
class FakeConsumer:
    assigned: set[TP] = field(default_factory=set)

    def assignment(self) -> set[TP]:
        return set(self.assigned)


@dataclass
class FakeApp:
    consumer: FakeConsumer = field(default_factory=FakeConsumer)


def test_every_events_partition_makes_it_whole_and_each_change_is_said_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, ownership = FakeApp(), Ownership("f.events", 3)
    changelog = {TP("f-readside-aggregates-changelog", p) for p in range(3)}  # not counted
    with caplog.at_level(logging.INFO, logger="streams.scaleout.readside.ownership"):
        assert not ownership.check(app)  # nothing assigned yet: silent
        app.consumer.assigned = {TP("f.events", 0), TP("f.events", 2)} | changelog
        assert not ownership.check(app)
        assert not ownership.check(app)  # the same: said once
        app.consumer.assigned |= {TP("f.events", 1)}
        assert ownership.check(app)
        assert ownership.whole
        assert ownership.check(app)
        app.consumer.assigned = {TP("f.events", 1)}
        assert not ownership.check(app)
    said = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert said == [
        (
            "WARNING",
            "readside: assigned 2 of 3 partitions of f.events: contribution-rate alerts are "
            "held until one read side owns them all (run one replica)",
        ),
        ("INFO", "readside: owns every partition of f.events: alerts judged"),
        (
            "WARNING",
            "readside: assigned 1 of 3 partitions of f.events: contribution-rate alerts are "
            "held until one read side owns them all (run one replica)",
        ),
    ]
