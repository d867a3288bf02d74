"""The benchmark harness runs end to end at tiny sizes and reports well-formed rows (no timing is
checked here: speed goals belong in ``python -m bench``, not in tests)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from bench import BENCHMARKS, NotBuilt, load, replay, workload
from bench.__main__ import main
from bench.common import PRESETS, Goal, Row, Settings
from bench.machine import facts
from bench.report import text_table, write
from bench.scale import big_floor
from controller.config.floor import load_floor_config

BUILT = [name for name in BENCHMARKS if not name.startswith("kafka")]  # need services
UNITS = {"events/s", "s", "ms", "MB"}


@pytest.fixture
def tiny(tmp_path: Path) -> Settings:
    return dataclasses.replace(PRESETS["tiny"], cache_dir=tmp_path / "cache")


def check_row(row: Row, settings: Settings) -> None:
    assert row.name
    assert row.unit in UNITS
    assert math.isfinite(row.value)
    assert row.value > 0
    assert row.goal is not None
    assert isinstance(row.passed, bool)
    assert row.samples
    assert all(math.isfinite(sample) and sample > 0 for sample in row.samples)
    if row.reference is not None:
        assert len(row.samples) == len(row.reference_samples) >= min(settings.repeats, 2)
        assert row.ratio == pytest.approx(row.value / row.reference)
    json.dumps(row.extra)  # every detail is plain JSON


@pytest.mark.parametrize("name", BUILT)
def test_each_benchmark_returns_well_formed_rows(name: str, tiny: Settings) -> None:
    rows = load(name)(tiny)
    assert rows
    for row in rows:
        check_row(row, tiny)


def test_the_core_row_counts_every_event_type_and_no_rejection(tiny: Settings) -> None:
    (row,) = load("core")(tiny)
    assert row.extra["rejected"] == 0
    assert row.extra["events"] == tiny.core_events
    assert {key for key in row.extra if key.startswith("count_")} == {
        f"count_{kind}" for kind in workload.EVENT_TYPES
    }


def test_replay_reuses_its_cached_log(tiny: Settings) -> None:
    first = replay.build_log(tiny)
    assert replay.build_log(tiny) == first
    assert list(tiny.cache_dir.glob("*.tmp*")) == []


def test_the_generated_floor_has_the_asked_tables_and_meters() -> None:
    config = load_floor_config(big_floor(tables=30, meters=12), "big.toml")
    assert len(config.tables) == 30
    assert len(config.meters) == 12
    with pytest.raises(ValueError, match="at least 3 tables"):
        big_floor(tables=2, meters=12)


def test_an_unwritten_benchmark_is_reported_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BENCHMARKS, "ghost", "bench.ghost")
    with pytest.raises(NotBuilt, match=r"bench/ghost\.py is not written yet"):
        load("ghost")


def test_goals_combine_bounds_and_ratio() -> None:
    goal = Goal(text="", at_least=10, ratio_at_least=0.5)
    assert goal.met(10, 0.5)
    assert not goal.met(9, 1.0)
    assert not goal.met(20, 0.4)
    assert not goal.met(20, None)
    assert Goal(text="", at_most=1.0).met(0.9, None)
    assert not Goal(text="", at_most=1.0).met(1.1, None)


def test_results_are_written_as_json_and_markdown(tmp_path: Path, tiny: Settings) -> None:
    rows = [
        Row(name="a", unit="events/s", value=200.0, reference_name="ref", reference=400.0,
            goal=Goal(text="fast", at_least=100), samples=(200.0,), reference_samples=(400.0,)),
        Row(name="b", unit="s", value=0.5, goal=Goal(text="< 1 s", at_most=1.0), samples=(0.5,)),
    ]  # fmt: skip
    machine = facts()
    path, compared = write(tmp_path, rows, tiny, machine)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert compared == []
    assert document["settings"]["mode"] == "tiny"
    assert {"cpu_model", "cpu_logical_cores", "python", "timestamp"} <= set(document["machine"])
    assert [r["ratio"] for r in document["rows"]] == [0.5, None]
    assert [r["passed"] for r in document["rows"]] == [True, True]
    latest = (tmp_path / "latest.md").read_text(encoding="utf-8")
    assert "| a | 200/s | 400/s ref | 0.50 | fast | PASS |" in latest
    again, compared = write(tmp_path, rows, tiny, machine)
    assert again != path
    assert compared == ["a: 200/s -> 200/s (+0.0%)", "b: 0.500 s -> 0.500 s (+0.0%)"]
    assert "benchmark" in text_table(rows).splitlines()[0]


def test_the_command_runs_chosen_benchmarks_and_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--tiny", "--only", "core,door", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "core throughput" in out
    assert "door: decode+validate" in out
    assert len(list(tmp_path.glob("*.json"))) == 1
    assert (tmp_path / "latest.md").exists()


def test_an_unknown_benchmark_name_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--tiny", "--only", "warp"])
    assert "unknown benchmark warp" in capsys.readouterr().err


def test_the_engine_row_reports_cpu_beside_wall(tiny: Settings) -> None:
    """The CPU figures are the thread's own time: positive, never above the wall time of the
    same rate, and their ratio is the reference's CPU over the subject's."""
    (row,) = load("engine")(tiny)
    cpu, reference_cpu = row.extra["cpu_us_per_event"], row.extra["reference_cpu_us_per_event"]
    assert isinstance(cpu, float)
    assert isinstance(reference_cpu, float)
    assert cpu > 0
    assert reference_cpu > 0
    assert row.extra["cpu_ratio"] == pytest.approx(reference_cpu / cpu, abs=2e-3)
    slowest_wall_us = 1e6 / min(row.samples)
    assert cpu <= slowest_wall_us * 1.05  # the median CPU of a run fits in the slowest run's wall
