"""The Kafka rows (throughput, latency, the read side) skip cleanly without a broker; with one
(integration), they measure."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bench import kafka_latency, kafka_readside
from bench.common import PRESETS, Row, Settings
from bench.kafka import run_rows
from tests.integration.services import require_kafka


@pytest.mark.parametrize(
    "rows", [run_rows, kafka_latency.run_rows, kafka_readside.run_rows], ids=lambda f: f.__module__
)
def test_no_broker_skips_the_row(
    monkeypatch: pytest.MonkeyPatch, rows: Callable[[Settings], list[Row]]
) -> None:
    monkeypatch.delenv("KAFKA_BOOTSTRAP", raising=False)
    assert rows(PRESETS["tiny"]) == []


@pytest.mark.integration
def test_tiny_run_on_a_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_BOOTSTRAP", require_kafka())
    (row,) = run_rows(PRESETS["tiny"])
    assert row.value > 0
    assert row.reference is not None
    assert row.reference > 0


@pytest.mark.integration
def test_tiny_latency_run_on_a_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every round whose wagers_locked was sent after the warm-up has its latency measured:
    the reader saw all of its contributions."""
    monkeypatch.setenv("KAFKA_BOOTSTRAP", require_kafka())
    (row,) = kafka_latency.run_rows(PRESETS["tiny"])
    assert row.value > 0
    rounds = row.extra["defaults_rounds"]
    assert isinstance(rounds, int)
    assert rounds > 0
    assert rounds == row.extra["defaults_rounds_expected"]
    assert row.samples
