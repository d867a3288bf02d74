"""The "kafka-procs" bench row (`bench.kafka_procs`) runs without services: both processors, each
against a json.loads pass of its own inputs, and main's copy alongside when asked."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from bench import BENCHMARKS, kafka_procs
from bench.common import PRESETS


def test_the_row_reports_both_processors_against_parsing() -> None:
    assert BENCHMARKS["kafka-procs"] == "bench.kafka_procs"
    rows = kafka_procs.run_rows(PRESETS["tiny"])
    assert [row.name for row in rows] == [
        "kafka round processor, no broker",
        "kafka meter processor, no broker",
    ]
    for row in rows:
        assert row.value > 0
        assert row.reference is not None
        assert 0 < row.reference < row.value  # a processor does more than parse its input


def test_mains_processors_can_run_alongside() -> None:
    got = kafka_procs.measure(300, 7, 1, versus="tests.streams.scaleout.mainref")
    assert set(got) >= {"round", "meter", "versus_round", "versus_meter", "claims"}
    assert got["claims"][0] > 0


def test_one_untimed_pass_keeps_its_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kafka_procs, "CACHE_DIR", tmp_path)
    kafka_procs.main(["--once", "rm", "--events", "60", "--seed", "3"])
    kept = tmp_path / "kafka-procs-60-3.pickle"
    assert len(pickle.loads(kept.read_bytes())) == 60  # noqa: S301 - written by the test
    kafka_procs.main(["--once", "r", "--events", "60", "--seed", "3"])  # read back, not made
