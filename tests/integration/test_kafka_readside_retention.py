"""The read side's retention on a real broker and a real faust table: windows older than
``--keep-hours`` behind their partition's newest record are deleted from the aggregates table,
which writes a tombstone to its compacted changelog, so a restart does not restore them.

The records are written straight to the events topic (the read side reads nothing else): ten
hours of contributions on one partition, kept three hours. What must remain is worked out here
from the topic itself (`expected_sums`), cut at the hour three before the newest record's.
"""

from __future__ import annotations

import signal
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from confluent_kafka import Producer

from controller.model.events import ContributionRecorded
from streams.codec import encode
from tests.integration.services import require_kafka
from tests.integration.test_kafka_parity import deploy
from tests.integration.test_kafka_readside import (
    ReadSide,
    expected_sums,
    stored_sums,
    wait_committed,
)

pytestmark = pytest.mark.integration
START = datetime(2026, 11, 29, 8, 0, tzinfo=UTC)  # gaming days start 06:00 UTC: all one day
HOURS, KEEP_HOURS = 10, 3


def _contribution(minutes: int, sub: int) -> bytes:
    at = (START + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
    return encode(
        ContributionRecorded(
            meter_id="m1",
            table_id="tcp-1",
            round_id=f"tcp-1-R{minutes:06d}",
            seat=1,
            wager="progressive",
            on="own",
            wager_cents=500,
            primary_sub=sub,
            reserve_sub=0,
            meter_seq=minutes + 1,
            occurred_at=at,
        )
    )


def test_windows_past_the_retention_are_deleted_from_the_faust_table(tmp_path: Path) -> None:
    bootstrap = require_kafka()
    names = deploy(bootstrap, table_partitions=1)
    producer = Producer({"bootstrap.servers": bootstrap})
    for minutes in range(0, HOURS * 60, 20):  # three a hour, ten hours
        producer.produce(names.events, _contribution(minutes, 1_000 + minutes), partition=0)
    assert producer.flush(30) == 0
    readside = ReadSide(bootstrap, names, tmp_path)
    readside.extra = ["--history", "1", "--min-history", "1", "--keep-hours", str(KEEP_HOURS)]
    readside.start()
    try:
        every, ends = expected_sums(bootstrap, names)
        wait_committed(bootstrap, f"{names.prefix}-readside", names.events, ends, timeout=120)
        newest_hour = START + timedelta(hours=HOURS - 1)
        oldest_kept = (newest_hour - timedelta(hours=KEEP_HOURS)).strftime("%Y-%m-%dT%H:%M:%SZ")
        expected = {w: c for w, c in every.items() if w[1] == "d" or w[2] >= oldest_kept}
        assert len([w for w in every if w[1] == "h"]) == HOURS
        assert stored_sums(bootstrap, f"{names.prefix}-readside") == expected
        assert len([w for w in expected if w[1] == "h"]) == KEEP_HOURS + 1
        assert readside.process is not None
        readside.process.send_signal(signal.SIGTERM)
        assert readside.process.wait(timeout=10) == 0, readside.logs()
    finally:
        if readside.process is not None and readside.process.poll() is None:
            readside.process.kill()
            readside.process.wait(timeout=30)
