"""The Kafka row skips cleanly without a broker; with one (integration), it measures."""

from __future__ import annotations

import pytest

from bench import kafka_latency
from bench.common import PRESETS
from bench.kafka import run_rows
from tests.integration.services import require_kafka


def test_no_broker_skips_the_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAFKA_BOOTSTRAP", raising=False)
    assert run_rows(PRESETS["tiny"]) == []


@pytest.mark.integration
def test_tiny_run_on_a_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_BOOTSTRAP", require_kafka())
    (row,) = run_rows(PRESETS["tiny"])
    assert row.value > 0
    assert row.reference is not None
    assert row.reference > 0


def test_no_broker_skips_the_latency_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAFKA_BOOTSTRAP", raising=False)
    assert kafka_latency.run_rows(PRESETS["tiny"]) == []


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
