"""The kafka-readside bench row on a broker (integration): both contenders take every record and
the row carries a rate for each (without a broker it skips: `tests/bench/test_bench_kafka.py`)."""

from __future__ import annotations

import pytest

from bench.common import PRESETS
from bench.kafka_readside import run_rows
from tests.integration.services import require_kafka


@pytest.mark.integration
def test_tiny_run_on_a_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_BOOTSTRAP", require_kafka())
    (row,) = run_rows(PRESETS["tiny"])
    assert row.value > 0
    assert row.reference is not None
    assert row.reference > 0
    assert int(str(row.extra["records"])) >= int(str(row.extra["table_events"]))
