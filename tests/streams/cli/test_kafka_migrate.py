"""``jackpot kafka migrate-changelog``'s report (its run on a broker:
``tests/integration/test_kafka_changelog_migration.py``)."""

from __future__ import annotations

from streams.adapters.kafka.topics import TopicNames
from streams.cli.kafka_migrate import report
from streams.scaleout.migrate import Copied, Migration


def test_the_report_says_what_was_kept_or_deleted() -> None:
    names = TopicNames("floor1")
    assert "nothing to move" in report(names, Migration((), ()))
    copied = (Copied("floor1-controller-rounds-changelog", 10, 2),)
    kept = report(names, Migration(copied, ()))
    assert "10 record(s) and 2 progress mark(s)" in kept
    assert "--delete-old" in kept
    gone = report(names, Migration(copied, ("floor1-controller-rounds-changelog",)))
    assert "deleted floor1-controller-rounds-changelog" in gone
