"""The signage benchmark row skips cleanly without Redis (then it probes no broker); with a broker
and Redis (integration) it measures and checks what Redis shows (no timing is checked)."""

from __future__ import annotations

import pytest

from bench import BENCHMARKS
from bench.common import PRESETS
from bench.kafka_signage import run_rows
from tests.integration.services import require_kafka, require_redis


def test_the_row_is_registered() -> None:
    assert BENCHMARKS["kafka-signage"] == "bench.kafka_signage"


def test_no_redis_skips_the_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert run_rows(PRESETS["tiny"]) == []
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens: refused at once
    assert run_rows(PRESETS["tiny"]) == []


@pytest.mark.integration
def test_tiny_run_on_a_broker_and_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_BOOTSTRAP", require_kafka())
    monkeypatch.setenv("REDIS_URL", require_redis())
    (row,) = run_rows(PRESETS["tiny"])
    assert row.value > 0
    assert row.reference is not None
    assert row.reference > 0
    records, table_events = row.extra["records"], row.extra["table_events"]
    assert isinstance(records, int)
    assert isinstance(table_events, int)
    assert records > table_events  # meter events besides table events
