"""The worker's per-batch phase lines (`streams.adapters.kafka.phases`) and the latency bench's
summary of them (`bench.kafka_phases`): what the bench reports must be what the loop stamped."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from bench.kafka_phases import phase_figures, pickups_ms
from streams.adapters.kafka.phases import PHASES_ENV, BatchPhases, PhaseLog, stamp


class Record:
    """A consumed record: its topic and CreateTime (ms)."""

    def __init__(self, topic: str, created_ms: int) -> None:
        self._topic, self._created = topic, created_ms

    def topic(self) -> str:
        return self._topic

    def timestamp(self) -> tuple[int, int]:
        return (1, self._created)


def test_without_the_variable_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PHASES_ENV, raising=False)
    log = PhaseLog()
    assert not log.enabled
    log.write(BatchPhases(1.0))
    assert list(tmp_path.iterdir()) == []


def test_a_batch_line_holds_its_stamps_and_lanes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PHASES_ENV, str(tmp_path / "w"))
    log = PhaseLog()
    phases = BatchPhases(10.0)
    records: Any = [Record("p.table-events", 9_990), Record("p.table-events", 9_995)]
    records.append(Record("p.meter-claims", 9_980))
    phases.took(records)
    stamp(phases, "decided")
    phases.committed = 11.0
    log.write(phases)
    log.close()
    (path,) = tmp_path.iterdir()
    line = json.loads(path.read_text("utf-8"))
    assert line["t0"] == 10.0
    assert line["committed"] == 11.0
    assert line["taken"] >= 10.0
    assert line["lanes"] == {"p.table-events": [2, 9.99, 9.995], "p.meter-claims": [1, 9.98, 9.98]}
    stamp(None, "decided")  # untraced: nothing to stamp, and no error


def batch(t0: float, **stamps: Any) -> dict[str, Any]:
    """A phase line starting at ``t0``, the rest of its stamps ms after it."""
    line: dict[str, Any] = {"t0": t0, "lanes": stamps.pop("lanes", {})}
    for name in ("taken", "decided", "finished", "produced", "offsets_sent", "committed"):
        line[name] = t0 + stamps[name] / 1000
    return line


def test_claims_are_picked_up_from_the_commit_that_produced_them(tmp_path: Path) -> None:
    """Hand-worked: batch A produces claims between 100.010 and 100.012 and commits at 100.030;
    batch B takes them at 100.045: 15 ms after A's commit. B's phases: 5 ms of take, 2 decide,
    20 waiting for A, 1 producing, 4 sending offsets, 8 committing = 40 ms in all."""
    first = batch(
        100.0, taken=5, decided=8, finished=10, produced=12, offsets_sent=20, committed=30
    )
    claims = {"p.meter-claims": [3, 100.0105, 100.0115]}
    second = batch(
        100.040,
        taken=5,
        decided=7,
        finished=27,
        produced=28,
        offsets_sent=32,
        committed=40,
        lanes=claims,
    )
    assert pickups_ms([first, second]) == [pytest.approx(15.0)]
    path = tmp_path / "w.phases.1"
    path.write_text("".join(json.dumps(line) + "\n" for line in (first, second)), "utf-8")
    figures = phase_figures([path], since=100.035)  # only the second batch counts
    assert figures["batches"] == 1
    expected = {"take": 5, "decide": 2, "wait_commit": 20, "produce": 1, "send_offsets": 4}
    for name, ms in {**expected, "commit": 8, "batch": 40}.items():
        assert figures[f"{name}_p50_ms"] == pytest.approx(ms, abs=0.11)
    assert figures["meter-claims_per_batch"] == 3.0
    pickup = figures["claims_pickup_p50_ms"]
    assert isinstance(pickup, float)
    assert math.isnan(pickup)  # A was before `since`: none
